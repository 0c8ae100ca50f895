package io.braidfs.mds.server;

import io.braidfs.common.error.Status;
import io.braidfs.mds.namespace.Client;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: one line per namespace mutation and open, allowed or not, on the logger {@code
 * braid.audit} (as HDFS's FSNamesystem.audit), so the logging configuration routes it to a file of
 * its own (dist's logback.xml does, with braid.log.dir). Fields are {@code key=value},
 * tab-separated.
 *
 * <p>Thread-safety: thread-safe.
 */
final class Audit {
  private static final Logger AUDIT = LoggerFactory.getLogger("braid.audit");

  private final boolean enabled;

  Audit(boolean enabled) {
    this.enabled = enabled;
  }

  void log(Client client, String cmd, String target, Status status) {
    if (!enabled || !AUDIT.isInfoEnabled()) {
      return;
    }
    AUDIT.info(
        "allowed={}\tuser={}\tclient={}\tip={}\tcmd={}\tsrc={}\tstatus={}",
        status != Status.PERMISSION_DENIED,
        client.caller().user(),
        client.name(),
        client.host(),
        cmd,
        target,
        status);
  }
}
