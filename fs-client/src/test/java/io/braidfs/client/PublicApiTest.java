package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLiteOrBuilder;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.SetAttrRequest;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The client's API speaks Braid's own types: no public or protected member of a public type in an
 * exported package (every {@code io.braidfs.client} package not named {@code internal}) names
 * generated protobuf or an internal package, as a parameter, return, exception, field, supertype,
 * type argument or bound. It checks by reflection what {@code javap -public} of those classes would
 * show, so that it keeps holding as the API grows.
 */
class PublicApiTest {
  /** Name prefixes no exported signature may mention; nor any package named internal. */
  private static final List<String> FORBIDDEN =
      List.of("io.braidfs.proto.", "io.braidfs.common.proto.", "com.google.protobuf.");

  private static final String INTERNAL = ".internal.";

  @Test
  void exportedTypesNameNoProtobufOrInternalType() throws IOException, URISyntaxException {
    List<Class<?>> api = exportedTypes();
    // The scan must see the API, or an empty scan would pass.
    assertThat(api)
        .contains(
            BraidClient.class,
            BraidClient.Builder.class,
            FileAttributes.class,
            FileAttributes.Builder.class,
            AttrChange.Builder.class,
            BraidOutputStream.class,
            BraidAdmin.class,
            FsckReport.class,
            ClusterReport.class,
            MdsProbe.class,
            MdsProbe.Answer.class,
            MdsStatus.class)
        .doesNotContain(StripedReader.class);
    List<String> found = new ArrayList<>();
    for (Class<?> c : api) {
      found.addAll(violations(c));
    }
    assertThat(found).as("protobuf or internal types in the public API").isEmpty();
  }

  @Test
  void theCheckFindsEveryKindOfUse() {
    assertThat(violations(Leaky.class))
        .containsExactlyInAnyOrder(
            Leaky.class.getName() + " implements com.google.protobuf.MessageLiteOrBuilder",
            Leaky.class.getName() + ".token has type com.google.protobuf.ByteString",
            Leaky.class.getName() + "(SetAttrRequest) names io.braidfs.proto.SetAttrRequest",
            Leaky.class.getName() + ".list() names io.braidfs.proto.Attributes",
            Leaky.class.getName() + ".generic() names com.google.protobuf.Message",
            Leaky.class.getName()
                + ".parse() names com.google.protobuf.InvalidProtocolBufferException",
            Leaky.class.getName()
                + ".reader() names io.braidfs.client.internal.data.StripedReader");
  }

  /** Every public type, nested ones included, in the exported packages of fs-client's classes. */
  private static List<Class<?>> exportedTypes() throws IOException, URISyntaxException {
    Path root =
        Path.of(BraidClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        files.forEach(f -> names.add(root.relativize(f).toString().replace('\\', '/')));
      }
    } else {
      try (JarFile jar = new JarFile(root.toFile())) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          names.add(e.nextElement().getName());
        }
      }
    }
    List<Class<?>> out = new ArrayList<>();
    for (String name : names) {
      if (!name.startsWith("io/braidfs/client/")
          || !name.endsWith(".class")
          || name.endsWith("package-info.class")
          || ("/" + name).contains("/internal/")) {
        continue;
      }
      String binary = name.substring(0, name.length() - ".class".length()).replace('/', '.');
      Class<?> c;
      try {
        c = Class.forName(binary, false, BraidClient.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("listed but not loadable: " + binary, e);
      }
      if (isExported(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /** Public, and nested only in public types; not anonymous, local or synthetic. */
  private static boolean isExported(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
      if (!Modifier.isPublic(k.getModifiers())
          || k.isAnonymousClass()
          || k.isLocalClass()
          || k.isSynthetic()) {
        return false;
      }
    }
    return true;
  }

  /** What {@code c}'s public and protected surface names that it must not, one line each. */
  static List<String> violations(Class<?> c) {
    List<String> out = new ArrayList<>();
    String name = c.getName();
    check(out, () -> name + " extends", c.getGenericSuperclass());
    for (Type t : c.getGenericInterfaces()) {
      check(out, () -> name + " implements", t);
    }
    for (TypeVariable<?> v : c.getTypeParameters()) {
      check(out, () -> name + "<" + v.getName() + ">", v);
    }
    for (Field f : c.getDeclaredFields()) {
      if (visible(f)) {
        check(out, () -> name + "." + f.getName() + " has type", f.getGenericType());
      }
    }
    List<Executable> members = new ArrayList<>(List.of(c.getDeclaredConstructors()));
    for (Method m : c.getDeclaredMethods()) {
      if (!m.isBridge()) {
        members.add(m);
      }
    }
    for (Executable e : members) {
      if (!visible(e)) {
        continue;
      }
      Supplier<String> where = () -> describe(c, e) + " names";
      if (e instanceof Method m) {
        check(out, where, m.getGenericReturnType());
      }
      for (Type t : e.getGenericParameterTypes()) {
        check(out, where, t);
      }
      for (Type t : e.getGenericExceptionTypes()) {
        check(out, where, t);
      }
      for (TypeVariable<?> v : e.getTypeParameters()) {
        check(out, where, v);
      }
    }
    return out.stream().distinct().toList(); // a type named twice by one member counts once
  }

  private static boolean visible(Member m) {
    int mod = m.getModifiers();
    return !m.isSynthetic() && (Modifier.isPublic(mod) || Modifier.isProtected(mod));
  }

  private static String describe(Class<?> c, Executable e) {
    if (e instanceof Constructor<?>) {
      List<String> params = new ArrayList<>();
      for (Class<?> p : e.getParameterTypes()) {
        params.add(p.getSimpleName());
      }
      return c.getName() + "(" + String.join(", ", params) + ")";
    }
    return c.getName() + "." + e.getName() + "()";
  }

  /** Adds a line for each forbidden class {@code type} mentions, anywhere inside it. */
  private static void check(List<String> out, Supplier<String> where, Type type) {
    Set<String> seen = new HashSet<>();
    collect(type, seen, new HashSet<>());
    for (String n : seen) {
      if (FORBIDDEN.stream().anyMatch(n::startsWith) || n.contains(INTERNAL)) {
        out.add(where.get() + " " + n);
      }
    }
  }

  private static void collect(Type type, Set<String> names, Set<TypeVariable<?>> visiting) {
    if (type instanceof Class<?> c) {
      while (c.isArray()) {
        c = c.getComponentType();
      }
      names.add(c.getName());
    } else if (type instanceof ParameterizedType p) {
      collect(p.getRawType(), names, visiting);
      if (p.getOwnerType() != null) {
        collect(p.getOwnerType(), names, visiting);
      }
      for (Type a : p.getActualTypeArguments()) {
        collect(a, names, visiting);
      }
    } else if (type instanceof WildcardType w) {
      for (Type b : w.getUpperBounds()) {
        collect(b, names, visiting);
      }
      for (Type b : w.getLowerBounds()) {
        collect(b, names, visiting);
      }
    } else if (type instanceof TypeVariable<?> v) {
      if (visiting.add(v)) {
        for (Type b : v.getBounds()) {
          collect(b, names, visiting);
        }
      }
    } else if (type instanceof GenericArrayType g) {
      collect(g.getGenericComponentType(), names, visiting);
    }
  }

  /** A type that leaks in every position the check looks at, to show that it finds each. */
  @SuppressWarnings("unused")
  public abstract static class Leaky implements MessageLiteOrBuilder {
    public ByteString token;

    /** Package-private members are not API: not reported. */
    Attributes hidden;

    public Leaky(SetAttrRequest request) {}

    public abstract List<? extends Attributes> list();

    public abstract <T extends Message> T generic();

    public abstract void parse() throws InvalidProtocolBufferException;

    protected abstract StripedReader reader();

    abstract Attributes notApi();
  }
}
