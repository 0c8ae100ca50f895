package io.braidfs.testing.process;

import io.braidfs.testing.TestKdc;
import java.nio.file.Path;
import java.util.UUID;

/**
 * A KDC as a process of its own on a host of the process cluster: {@link TestKdc} on the host's
 * address, with the principals it is given, their keytabs and ticket caches in its directory, which
 * every host sees. Runs until it is killed.
 *
 * <pre>
 * KdcMain DIR ADDRESS PORT [keytab:PRINCIPAL | ticket:PRINCIPAL]...
 *   keytab:P  a principal with random keys, exported to DIR/P.keytab ('/' written as '_')
 *   ticket:P  a principal with a random password, logged in as kinit would: DIR/P.ccache
 * then prints "braid kdc: serving ADDRESS:PORT (realm REALM)"
 * </pre>
 *
 * <p>Thread-safety: a program.
 */
public final class KdcMain {
  private KdcMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      throw new IllegalArgumentException("usage: KdcMain DIR ADDRESS PORT [keytab:P|ticket:P]...");
    }
    Path dir = Path.of(args[0]);
    TestKdc kdc = TestKdc.start(dir, args[1], Integer.parseInt(args[2]));
    for (int i = 3; i < args.length; i++) {
      String spec = args[i];
      if (spec.startsWith("keytab:")) {
        kdc.keytab(spec.substring("keytab:".length()));
      } else if (spec.startsWith("ticket:")) {
        kdc.ticketCache(spec.substring("ticket:".length()), UUID.randomUUID().toString());
      } else {
        throw new IllegalArgumentException("not keytab:P or ticket:P: " + spec);
      }
    }
    System.out.printf("braid kdc: serving %s:%s (realm %s)%n", args[1], args[2], TestKdc.REALM);
    Thread.currentThread().join(); // until killed
  }
}
