package io.braidfs.common.rpc;

import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.braidfs.proto.CommonProtos;
import io.braidfs.proto.HelloRequest;
import io.braidfs.proto.HelloResponse;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One RPC method: its wire id, its request and response types. This class is the registry of all
 * methods, used by client stubs (to encode a call and parse its reply) and by server dispatch (to
 * parse a request and find its handler).
 *
 * <p>Methods are declared once, in the {@code .proto} services of fs-common; the id comes from the
 * {@code (braid.method_id)} option there. Each constant below binds a proto method to its Java
 * types, and {@code RpcMethodTest} checks that every proto method has exactly one constant.
 *
 * <p>Thread-safety: immutable; the registry is complete once this class is initialised.
 *
 * @param <Q> the request message type
 * @param <R> the response message type
 */
public final class RpcMethod<Q extends Message, R extends Message> {
  private static final Map<Integer, RpcMethod<?, ?>> BY_ID = new LinkedHashMap<>();

  // ---- CommonService: served by every server -------------------------------------------------
  public static final RpcMethod<HelloRequest, HelloResponse> HELLO =
      define(
          CommonProtos.getDescriptor().findServiceByName("CommonService"),
          "Hello",
          HelloRequest.getDefaultInstance(),
          HelloResponse.getDefaultInstance());
  public static final RpcMethod<PingRequest, PingResponse> PING =
      define(
          CommonProtos.getDescriptor().findServiceByName("CommonService"),
          "Ping",
          PingRequest.getDefaultInstance(),
          PingResponse.getDefaultInstance());

  private final int id;
  private final MethodDescriptor descriptor;
  private final Q requestPrototype;
  private final R responsePrototype;

  private RpcMethod(int id, MethodDescriptor descriptor, Q requestPrototype, R responsePrototype) {
    this.id = id;
    this.descriptor = descriptor;
    this.requestPrototype = requestPrototype;
    this.responsePrototype = responsePrototype;
  }

  private static <Q extends Message, R extends Message> RpcMethod<Q, R> define(
      ServiceDescriptor service, String name, Q request, R response) {
    MethodDescriptor md = service.findMethodByName(name);
    if (md == null) {
      throw new IllegalStateException("no method " + name + " in " + service.getFullName());
    }
    if (!md.getInputType().equals(request.getDescriptorForType())
        || !md.getOutputType().equals(response.getDescriptorForType())) {
      throw new IllegalStateException("types of " + md.getFullName() + " differ from the proto");
    }
    int id = md.getOptions().getExtension(CommonProtos.methodId);
    if (id <= 0 || id > 0xFFFF) {
      throw new IllegalStateException(md.getFullName() + " has no valid (braid.method_id)");
    }
    RpcMethod<Q, R> m = new RpcMethod<>(id, md, request, response);
    RpcMethod<?, ?> previous = BY_ID.putIfAbsent(id, m);
    if (previous != null) {
      throw new IllegalStateException(
          "method id " + id + " used by " + previous.fullName() + " and " + md.getFullName());
    }
    return m;
  }

  /** The wire id, an unsigned 16-bit value. */
  public int id() {
    return id;
  }

  /** The proto name, such as {@code braid.MetadataService.Create}. */
  public String fullName() {
    return descriptor.getFullName();
  }

  public MethodDescriptor descriptor() {
    return descriptor;
  }

  @SuppressWarnings("unchecked")
  public Parser<Q> requestParser() {
    return (Parser<Q>) requestPrototype.getParserForType();
  }

  @SuppressWarnings("unchecked")
  public Parser<R> responseParser() {
    return (Parser<R>) responsePrototype.getParserForType();
  }

  public Q requestPrototype() {
    return requestPrototype;
  }

  public R responsePrototype() {
    return responsePrototype;
  }

  /** The method with this wire id, or {@code null} if none is registered. */
  public static RpcMethod<?, ?> byId(int id) {
    return BY_ID.get(id);
  }

  /** Every registered method, in declaration order. */
  public static Collection<RpcMethod<?, ?>> all() {
    return Collections.unmodifiableCollection(BY_ID.values());
  }

  @Override
  public String toString() {
    return descriptor.getName() + "#" + id;
  }
}
