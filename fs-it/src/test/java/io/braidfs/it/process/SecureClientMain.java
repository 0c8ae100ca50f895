package io.braidfs.it.process;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.DelegationToken;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.StatusException;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.security.SecurityConfigKeys;
import io.braidfs.proto.PingRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A client of a Kerberos cluster run as its own process on a host of the process cluster: one call,
 * as a principal from its keytab, with a delegation token alone, or with no credentials at all.
 * Prints one line, {@code ok [VALUE]} or {@code refused STATUS MESSAGE} (the server's refusal);
 * fails with exit code 1 on anything else.
 *
 * <pre>
 * SecureClientMain MDS KRB5 as PRINCIPAL KEYTAB USER OP ARGS...   log in, act as USER
 * SecureClientMain MDS KRB5 token FILE OP ARGS...                 a token of gettoken alone
 * SecureClientMain MDS KRB5 plain HOST:PORT                       a Ping without credentials
 * OP: stat PATH (-> owner) | read PATH (-> text) | write PATH TEXT | mkdir PATH OWNER
 *     | gettoken RENEWER FILE
 * </pre>
 *
 * <p>Thread-safety: a program; one thread.
 */
public final class SecureClientMain {
  private SecureClientMain() {}

  public static void main(String[] args) throws Exception {
    String mds = args[0];
    String krb5 = args[1];
    String mode = args[2];
    try {
      String value =
          switch (mode) {
            case "as" -> {
              BraidConfig config =
                  BraidConfig.fromMap(
                      Map.of(
                          "braid.client.mds",
                          mds,
                          SecurityConfigKeys.AUTHENTICATION.name(),
                          "KERBEROS",
                          SecurityConfigKeys.KERBEROS_KRB5_CONF.name(),
                          krb5,
                          SecurityConfigKeys.KERBEROS_PRINCIPAL.name(),
                          args[3],
                          SecurityConfigKeys.KERBEROS_KEYTAB.name(),
                          args[4]));
              try (BraidClient c =
                  BraidClient.builder(config).user(args[5]).name("secure-it").build()) {
                yield call(c, Arrays.copyOfRange(args, 6, args.length));
              }
            }
            case "token" -> {
              List<String> lines = Files.readAllLines(Path.of(args[3]));
              DelegationToken token =
                  new DelegationToken(
                      HexFormat.of().parseHex(lines.get(0)),
                      HexFormat.of().parseHex(lines.get(1)),
                      Long.parseLong(lines.get(2)));
              BraidConfig config = BraidConfig.fromMap(Map.of("braid.client.mds", mds));
              try (BraidClient c =
                  BraidClient.builder(config).delegationToken(token).name("task").build()) {
                yield call(c, Arrays.copyOfRange(args, 4, args.length));
              }
            }
            case "plain" -> {
              try (RpcClient plain = RpcClient.builder("plain").user("root").build()) {
                plain.start();
                plain.callSync(
                    HostPort.parse(args[3]).toSocketAddress(),
                    RpcMethod.PING,
                    PingRequest.getDefaultInstance());
                yield "";
              }
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
          };
      System.out.println(("ok " + value).strip());
    } catch (Exception e) {
      if (!(e instanceof StatusException se)) {
        throw e;
      }
      System.out.println(
          "refused " + se.status() + " " + String.valueOf(e.getMessage()).replace('\n', ' '));
    }
  }

  private static String call(BraidClient c, String... op) throws Exception {
    switch (op[0]) {
      case "stat":
        return c.stat(op[1]).user();
      case "read":
        try (BraidInputStream in = c.open(op[1])) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      case "write":
        try (BraidOutputStream out = c.create(op[1])) {
          out.write(op[2].getBytes(StandardCharsets.UTF_8));
        }
        return "";
      case "mkdir":
        c.mkdirs(op[1], 0755);
        c.setOwner(op[1], op[2], null);
        return "";
      case "gettoken":
        DelegationToken t = c.getDelegationToken(op[1]);
        Files.write(
            Path.of(op[2]),
            List.of(
                HexFormat.of().formatHex(t.identifier()),
                HexFormat.of().formatHex(t.password()),
                "" + t.expiresMs()));
        return "" + t.fields().sequence();
      default:
        throw new IllegalArgumentException("unknown op " + op[0]);
    }
  }
}
