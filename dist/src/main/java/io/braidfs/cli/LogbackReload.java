package io.braidfs.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.DefaultJoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.Status;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The part of {@link ServerLogs} that speaks to logback itself: loads the logging configuration
 * again with the log files' system properties set, and back without them. Kept apart so that {@link
 * ServerLogs} loads (and its commands run) where logback is not on the class path.
 *
 * <p>Thread-safety: not thread-safe, as {@link ServerLogs}.
 */
final class LogbackReload {
  private final LoggerContext context;
  private final URL configuration;

  private LogbackReload(LoggerContext context, URL configuration) {
    this.context = context;
    this.configuration = configuration;
  }

  /**
   * Sets {@code properties} as system properties and loads the configuration logback found at start
   * again; on errors, takes them back and says what logback reported.
   */
  static LogbackReload open(Map<String, String> properties) throws IOException {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    // The file logback found at start, found the same way: -Dlogback.configurationFile (which
    // bin/braid sets to BRAID_CONF_DIR's logback.xml), else logback-test.xml or logback.xml on the
    // classpath (the shipped one).
    DefaultJoranConfigurator finder = new DefaultJoranConfigurator();
    finder.setContext(context);
    URL configuration = finder.findURLOfDefaultConfigurationFile(false);
    if (configuration == null) {
      throw new IOException("no logging configuration was found to load again");
    }
    properties.forEach(System::setProperty);
    List<String> errors = configure(context, configuration);
    if (!errors.isEmpty()) {
      properties.keySet().forEach(System::clearProperty);
      configure(context, configuration);
      throw new IOException(configuration + ": " + String.join("; ", errors));
    }
    return new LogbackReload(context, configuration);
  }

  /** Loads the configuration again (the caller has cleared the files' properties). */
  void restore() {
    configure(context, configuration);
  }

  /** Loads {@code configuration} afresh; the errors logback reported while doing so. */
  private static List<String> configure(LoggerContext context, URL configuration) {
    long start = System.currentTimeMillis();
    context.reset();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    List<String> errors = new ArrayList<>();
    try {
      configurator.doConfigure(configuration);
    } catch (JoranException e) {
      errors.add(Errors.describe(e));
    }
    for (Status s : context.getStatusManager().getCopyOfStatusList()) {
      if (s.getLevel() == Status.ERROR && s.getTimestamp() >= start) {
        Throwable t = s.getThrowable();
        errors.add(s.getMessage() + (t == null ? "" : ": " + Errors.describe(t)));
      }
    }
    return errors;
  }
}
