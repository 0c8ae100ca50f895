package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.braidfs.proto.CommonProtos;
import io.braidfs.proto.DataProtos;
import io.braidfs.proto.MdsProtos;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Checks that the {@link RpcMethod} registry and the {@code .proto} services agree exactly, and
 * that {@code docs/protocol.md} lists every method.
 *
 * <p>The expected side comes from the proto descriptors and the actual side from reflection over
 * the class's constants, so a proto method without a constant (or a constant without a proto
 * method) fails here rather than at the first call.
 */
class RpcMethodTest {
  /** Every proto file that declares services; a new one must be added here. */
  private static final List<FileDescriptor> PROTO_FILES =
      List.of(CommonProtos.getDescriptor(), MdsProtos.getDescriptor(), DataProtos.getDescriptor());

  /** The id range each service owns (inclusive); see docs/protocol.md. */
  private static final Map<String, int[]> ID_RANGES =
      Map.of(
          "braid.CommonService", new int[] {1, 99},
          "braid.MetadataService", new int[] {100, 199},
          "braid.ClusterService", new int[] {200, 249},
          "braid.DataService", new int[] {300, 399},
          "braid.AdminService", new int[] {400, 449});

  /** A row of the method table: | id | service | name | request | response | payload |. */
  private static final Pattern TABLE_ROW =
      Pattern.compile(
          "^\\|\\s*(\\d+)\\s*\\|\\s*(\\w+)\\s*\\|\\s*(\\w+)\\s*\\|\\s*(\\w+)\\s*\\|\\s*(\\w+)\\s*\\|"
              + "\\s*(no|request|response|both)\\s*\\|\\s*$");

  private static List<MethodDescriptor> protoMethods() {
    List<MethodDescriptor> methods = new ArrayList<>();
    for (FileDescriptor file : PROTO_FILES) {
      for (ServiceDescriptor service : file.getServices()) {
        methods.addAll(service.getMethods());
      }
    }
    return methods;
  }

  /** The constants, by field name, read reflectively (which also forces class initialisation). */
  private static Map<String, RpcMethod<?, ?>> constants() throws IllegalAccessException {
    Map<String, RpcMethod<?, ?>> constants = new HashMap<>();
    for (Field field : RpcMethod.class.getDeclaredFields()) {
      int mods = field.getModifiers();
      if (field.getType() == RpcMethod.class
          && Modifier.isPublic(mods)
          && Modifier.isStatic(mods)
          && Modifier.isFinal(mods)) {
        constants.put(field.getName(), (RpcMethod<?, ?>) field.get(null));
      }
    }
    return constants;
  }

  private static int optionId(MethodDescriptor md) {
    return md.getOptions().getExtension(CommonProtos.methodId);
  }

  @Test
  void everyProtoMethodHasExactlyOneMatchingConstant() throws Exception {
    Map<String, RpcMethod<?, ?>> constants = constants();
    List<MethodDescriptor> methods = protoMethods();
    assertThat(methods).isNotEmpty();

    for (MethodDescriptor md : methods) {
      List<RpcMethod<?, ?>> matching =
          constants.values().stream()
              .filter(m -> m.descriptor().getFullName().equals(md.getFullName()))
              .toList();
      assertThat(matching).as("constants for %s", md.getFullName()).hasSize(1);
      RpcMethod<?, ?> m = matching.get(0);
      assertThat(m.id()).as("id of %s", md.getFullName()).isEqualTo(optionId(md));
      assertThat(m.requestPrototype().getDescriptorForType())
          .as("request type of %s", md.getFullName())
          .isEqualTo(md.getInputType());
      assertThat(m.responsePrototype().getDescriptorForType())
          .as("response type of %s", md.getFullName())
          .isEqualTo(md.getOutputType());
    }
    assertThat(constants).as("constants, one per proto method").hasSameSizeAs(methods);
    assertThat(RpcMethod.all())
        .as("registry")
        .containsExactlyInAnyOrderElementsOf(constants.values());
  }

  @Test
  void constantNamesFollowTheProtoMethodNames() throws Exception {
    for (Map.Entry<String, RpcMethod<?, ?>> e : constants().entrySet()) {
      String protoName = e.getValue().descriptor().getName();
      String expected = protoName.replaceAll("(?<=[a-z0-9])(?=[A-Z])", "_").toUpperCase();
      assertThat(e.getKey()).as("constant for %s", protoName).isEqualTo(expected);
    }
  }

  @Test
  void idsAreUniqueAndInTheirServicesRange() {
    Set<Integer> seen = new HashSet<>();
    for (MethodDescriptor md : protoMethods()) {
      int id = optionId(md);
      assertThat(seen.add(id)).as("id %d of %s is unique", id, md.getFullName()).isTrue();
      int[] range = ID_RANGES.get(md.getService().getFullName());
      assertThat(range).as("id range of %s", md.getService().getFullName()).isNotNull();
      assertThat(id).as("id of %s", md.getFullName()).isBetween(range[0], range[1]);
    }
  }

  @Test
  void byIdRoundTrips() {
    assertThat(RpcMethod.all()).hasSize(protoMethods().size());
    for (RpcMethod<?, ?> m : RpcMethod.all()) {
      assertThat(RpcMethod.byId(m.id())).isSameAs(m);
    }
    assertThat(RpcMethod.byId(0)).isNull();
    assertThat(RpcMethod.byId(0xFFFF)).isNull();
  }

  @Test
  void parsersReadTheirOwnDefaultInstances() throws InvalidProtocolBufferException {
    for (RpcMethod<?, ?> m : RpcMethod.all()) {
      Message request = m.requestParser().parseFrom(m.requestPrototype().toByteArray());
      assertThat(request).as("request of %s", m).isEqualTo(m.requestPrototype());
      Message response = m.responseParser().parseFrom(m.responsePrototype().toByteArray());
      assertThat(response).as("response of %s", m).isEqualTo(m.responsePrototype());
    }
  }

  @Test
  void protocolDocListsEveryMethodAndNoOther() throws IOException {
    Map<Integer, String> documented = new HashMap<>();
    for (String line : Files.readAllLines(protocolDoc(), StandardCharsets.UTF_8)) {
      Matcher row = TABLE_ROW.matcher(line);
      if (row.matches()) {
        int id = Integer.parseInt(row.group(1));
        String previous =
            documented.put(
                id,
                String.join(
                    " ", row.group(2), row.group(3), row.group(4), row.group(5), row.group(6)));
        assertThat(previous).as("method id %d documented twice", id).isNull();
      }
    }
    Map<Integer, String> expected = new HashMap<>();
    for (MethodDescriptor md : protoMethods()) {
      expected.put(
          optionId(md),
          String.join(
              " ",
              md.getService().getName(),
              md.getName(),
              md.getInputType().getName(),
              md.getOutputType().getName(),
              payloadColumn(md)));
    }
    Map<Integer, String> missing = new TreeMap<>(expected);
    missing.entrySet().removeAll(documented.entrySet());
    Map<Integer, String> stale = new TreeMap<>(documented);
    stale.entrySet().removeAll(expected.entrySet());
    assertThat(missing).as("methods missing from the table in docs/protocol.md").isEmpty();
    assertThat(stale).as("rows of docs/protocol.md matching no proto method").isEmpty();
  }

  private static String payloadColumn(MethodDescriptor md) {
    boolean request = md.getOptions().getExtension(CommonProtos.requestPayload);
    boolean response = md.getOptions().getExtension(CommonProtos.responsePayload);
    return request ? (response ? "both" : "request") : (response ? "response" : "no");
  }

  /** Finds docs/protocol.md from the module directory (surefire's working directory) upwards. */
  private static Path protocolDoc() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path doc = dir.resolve("docs/protocol.md");
      if (Files.isRegularFile(doc)) {
        return doc;
      }
    }
    throw new AssertionError("docs/protocol.md not found above " + Path.of("").toAbsolutePath());
  }
}
