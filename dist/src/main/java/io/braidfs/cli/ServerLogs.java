package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Points a server process's logging at rotating files in {@code braid.log.dir}, once its
 * configuration is read: it sets the system properties below and loads the logging configuration
 * again (the shipped {@code logback.xml}, or the one {@code bin/braid} took from {@code
 * BRAID_CONF_DIR}), which then writes files instead of stderr. {@link #close()} takes them away and
 * loads it as it was.
 *
 * <p>Why system properties and not logback context properties: a configuration that rescans itself
 * ({@code scan="true"}) resets the context, which drops context properties but not system ones. Why
 * the configuration decides and not this class: an operator's own {@code logback.xml} may route the
 * same files differently, and the shipped one shows what the defaults are.
 *
 * <ul>
 *   <li>{@value #FILE}: {@code DIR/braid-NAME.log}, NAME being the role and server id
 *   <li>{@value #AUDIT_FILE}: {@code DIR/braid-NAME-audit.log}, set only where an MDS runs
 *   <li>{@value #MAX_FILE_SIZE}: bytes at which a file rolls over
 *   <li>{@value #MAX_HISTORY}: days rolled files are kept
 *   <li>{@value #TOTAL_SIZE_CAP}: bytes the rolled files of one log may take
 * </ul>
 *
 * <p>Thread-safety: not thread-safe; the command's thread opens and closes it, before its servers
 * start and after they stopped.
 */
final class ServerLogs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServerLogs.class);

  static final String FILE = "braid.log.file";
  static final String AUDIT_FILE = "braid.log.audit-file";
  static final String MAX_FILE_SIZE = "braid.log.max-file-size";
  static final String MAX_HISTORY = "braid.log.max-history";
  static final String TOTAL_SIZE_CAP = "braid.log.total-size-cap";

  /** Logs nowhere but where the process's logging already goes. */
  private static final ServerLogs NONE = new ServerLogs(null, Map.of());

  private final @Nullable LogbackReload reload;
  private final Map<String, String> properties;
  private boolean closed;

  private ServerLogs(@Nullable LogbackReload reload, Map<String, String> properties) {
    this.reload = reload;
    this.properties = properties;
  }

  /**
   * With {@code braid.log.dir} set, sends the process's logs to {@code braid-NAME.log} there (and
   * with {@code audit}, the MDS audit log to {@code braid-NAME-audit.log}); without it, changes
   * nothing. If the directory cannot be used or the logging configuration fails, says why in one
   * line on the command's stderr and returns null: the command then ends with exit code 1.
   *
   * @param role the server's role, such as {@code mds}
   * @param id the server's id, such as {@code mds-1}; NAME is {@code role-id}, or the id alone when
   *     it already starts with the role
   * @param audit whether an MDS runs in the process (only it writes the audit log)
   * @throws ConfigException if the rotation settings contradict each other
   */
  static @Nullable ServerLogs startFor(
      BraidConfig config, CommandSpec command, String role, String id, boolean audit) {
    String dir = config.get(LogConfigKeys.DIR);
    if (dir.isEmpty()) {
      return NONE;
    }
    DataSize maxFileSize = config.get(LogConfigKeys.MAX_FILE_SIZE);
    DataSize totalSizeCap = config.get(LogConfigKeys.TOTAL_SIZE_CAP);
    if (totalSizeCap.compareTo(maxFileSize) < 0) {
      // Logback refuses such a policy and would log nothing to the file.
      throw new ConfigException(
          command.commandLine(),
          LogConfigKeys.TOTAL_SIZE_CAP.name()
              + " ("
              + totalSizeCap
              + ") is less than "
              + LogConfigKeys.MAX_FILE_SIZE.name()
              + " ("
              + maxFileSize
              + ")",
          null);
    }
    String name = name(role, id);
    try {
      Path d = Path.of(dir).toAbsolutePath().normalize();
      Map<String, String> properties = new LinkedHashMap<>();
      properties.put(FILE, d.resolve("braid-" + name + ".log").toString());
      if (audit) {
        properties.put(AUDIT_FILE, d.resolve("braid-" + name + "-audit.log").toString());
      }
      properties.put(MAX_FILE_SIZE, Long.toString(maxFileSize.toBytes()));
      properties.put(MAX_HISTORY, Long.toString(config.get(LogConfigKeys.MAX_AGE).toDays()));
      properties.put(TOTAL_SIZE_CAP, Long.toString(totalSizeCap.toBytes()));
      ServerLogs logs = open(d, properties);
      LOG.info("{}: logging to {}", command.qualifiedName(), properties.get(FILE));
      return logs;
    } catch (IOException | RuntimeException e) {
      command
          .commandLine()
          .getErr()
          .println(
              command.qualifiedName()
                  + ": cannot write log files to "
                  + dir
                  + " ("
                  + LogConfigKeys.DIR.name()
                  + "): "
                  + Errors.describe(e));
      command.commandLine().getErr().flush();
      return null;
    }
  }

  /** The files' NAME: {@code role-id}, or the id alone if it starts with the role. */
  static String name(String role, String id) {
    String n = id.equals(role) || id.startsWith(role + "-") ? id : role + "-" + id;
    // An id is free text (braid.mds.id); keep the file name to one path segment.
    return n.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static ServerLogs open(Path dir, Map<String, String> properties) throws IOException {
    Files.createDirectories(dir);
    if (!Files.isWritable(dir)) {
      throw new IOException(dir + " is not writable");
    }
    // Checked by name: where logback is not on the class path (a program embedding the commands
    // with another backend), the class that touches it must never be loaded.
    String backend = LoggerFactory.getILoggerFactory().getClass().getName();
    if (!backend.equals("ch.qos.logback.classic.LoggerContext")) {
      throw new IOException("the logging backend is not logback but " + backend);
    }
    return new ServerLogs(LogbackReload.open(properties), properties);
  }

  /** Closes the files and loads the logging configuration as it was before. */
  @Override
  public void close() {
    LogbackReload r = reload;
    if (r == null || closed) {
      return;
    }
    closed = true;
    properties.keySet().forEach(System::clearProperty);
    r.restore();
  }
}
