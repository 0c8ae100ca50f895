package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The {@code braid} command line without starting anything: help, version, and every kind of usage
 * error, each of which must be one line on stderr and exit code 2.
 */
class BraidCommandTest {
  @TempDir Path tmp;

  /** The outcome of one in-process run. */
  record Run(int code, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Braid.commandLine(new StopSignal(), new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void helpListsTheSubcommandsAndSaysWhereBenchIs() {
    Run r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("Usage: braid", "mds", "dataserver", "zk", "bookie", "local", "fs", "admin")
        .contains("mount", "./braid bench");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void anUnknownCommandSuggestsTheNearestOnes() {
    Run r = run("mdss");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly(
            "braid: Unmatched argument at index 0: 'mdss'; did you mean 'mds'? (see braid --help)");
    Run fs = run("fs", "mkdri", "/x");
    assertThat(fs.errLines()).singleElement().asString().contains("did you mean 'mkdir'?");
    assertThat(run("fs", "zzzzzz").errLines()).singleElement().asString().doesNotContain("mean");
  }

  @Test
  void mdsHelpListsItsOptionsAndExitCodes() {
    Run r = run("mds", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("--conf", "-D", "--address", "--dir", "Exit codes");
  }

  @Test
  void versionNamesBraidAndItsVersion() {
    Run r = run("--version");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("braid " + VersionProvider.version());
    assertThat(VersionProvider.version()).isNotEqualTo("unknown").doesNotContain("${");
  }

  @Test
  void noSubcommandIsAUsageError() {
    Run r = run();
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines()).containsExactly("braid: missing a subcommand (see braid --help)");
  }

  @Test
  void anUnknownOptionIsAUsageError() {
    Run r = run("mds", "--bogus");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly("braid mds: Unknown option: '--bogus' (see braid mds --help)");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void anUnknownKeyIsAUsageErrorWithASuggestion() {
    Run r = run("mds", "-D", "braid.mds.adress=127.0.0.1:0");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly(
            "braid mds: unknown configuration key 'braid.mds.adress' given with -D;"
                + " did you mean 'braid.mds.address'?");
  }

  @Test
  void anInvalidValueIsAUsageErrorNamingKeyAndExpectation() {
    Run r = run("mds", "-Dbraid.mds.store.sync=maybe");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly(
            "braid mds: braid.mds.store.sync: invalid boolean 'maybe'; expected true or false"
                + " (given with -D)");
  }

  @Test
  void problemsInTheFileNameTheFile() throws IOException {
    Path conf = tmp.resolve("mds.properties");
    Files.writeString(conf, "braid.mds.read-threads=0\nbraid.mds.stor.dir=/x\n");
    Run r = run("mds", "--conf", conf.toString());
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("braid.mds.read-threads: invalid value '0'", "in " + conf)
        .contains("unknown configuration key 'braid.mds.stor.dir' in " + conf)
        .contains("did you mean 'braid.mds.store.dir'?");
  }

  @Test
  void aMissingFileIsAUsageError() {
    Path missing = tmp.resolve("missing.properties");
    Run r = run("mds", "--conf", missing.toString());
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly("braid mds: cannot read --conf " + missing + ": no such file");
  }

  @Test
  void aMalformedAddressIsAUsageError() {
    for (String bad : List.of("localhost", "host:", ":7400", "host:65536", "::1:7400", "h:x")) {
      Run r = run("mds", "--address", bad);
      assertThat(r.code()).as(bad).isEqualTo(Braid.EXIT_USAGE);
      assertThat(r.errLines())
          .as(bad)
          .containsExactly(
              "braid mds: --address: invalid address '"
                  + bad
                  + "': expected HOST:PORT with a port from 0 to 65535");
    }
    Run fromKey = run("mds", "-D", "braid.mds.address=nowhere");
    assertThat(fromKey.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(fromKey.err()).startsWith("braid mds: braid.mds.address: invalid address 'nowhere'");
  }

  @Test
  void flagsOverrideDefinesWhichOverrideTheFileWhichOverridesDefaults() throws IOException {
    Path conf = tmp.resolve("mds.properties");
    Files.writeString(
        conf,
        "braid.mds.address=10.0.0.1:1\nbraid.mds.id=from-file\nbraid.mds.read-threads=3\n"
            + "braid.mds.store.dir=/from/file\n");

    BraidConfig fileOnly = configuration("--conf", conf.toString());
    assertThat(fileOnly.get(MdsConfigKeys.ADDRESS)).isEqualTo("10.0.0.1:1");
    assertThat(fileOnly.get(MdsConfigKeys.ID)).isEqualTo("from-file");
    assertThat(fileOnly.get(MdsConfigKeys.RETRY_CACHE_TTL))
        .isEqualTo(MdsConfigKeys.RETRY_CACHE_TTL.defaultValue());

    BraidConfig all =
        configuration(
            "--conf",
            conf.toString(),
            "-D",
            "braid.mds.address=10.0.0.2:2",
            "-D",
            "braid.mds.id=from-define",
            "--address",
            "10.0.0.3:3",
            "--dir",
            "/from/flag");
    assertThat(all.get(MdsConfigKeys.ADDRESS)).isEqualTo("10.0.0.3:3");
    assertThat(all.get(MdsStoreConfigKeys.DIR)).isEqualTo("/from/flag");
    assertThat(all.get(MdsConfigKeys.ID)).isEqualTo("from-define");
    assertThat(all.get(MdsConfigKeys.READ_THREADS)).isEqualTo(3);
  }

  @Test
  void aCloseKeyIsSuggestedAndAFarOneIsNot() {
    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();
    assertThat(ConfigOptions.closest(registry, "braid.mds.store.syn"))
        .isEqualTo("braid.mds.store.sync");
    assertThat(ConfigOptions.closest(registry, "braid.nothing.like.this")).isNull();
    assertThat(ConfigOptions.distance("kitten", "sitting")).isEqualTo(3);
  }

  @Test
  void errorsDescribeACauseChainOnOneLine() {
    Exception e =
        new java.io.IOException(
            "bind 127.0.0.1:7400", new java.net.BindException("Address already in use"));
    assertThat(Errors.describe(e)).isEqualTo("bind 127.0.0.1:7400: Address already in use");
    Exception repeated =
        new java.io.IOException(new IllegalStateException("lock held\nby another process"));
    assertThat(Errors.describe(repeated)).isEqualTo("lock held; by another process");
  }

  /** The configuration {@code braid mds args...} would start with. */
  private static BraidConfig configuration(String... args) {
    CommandLine cmd =
        Braid.commandLine(
            new StopSignal(),
            new PrintWriter(new StringWriter()),
            new PrintWriter(new StringWriter()));
    CommandLine.ParseResult parsed = cmd.parseArgs(prepend("mds", args));
    MdsCommand mds = parsed.subcommand().commandSpec().commandLine().getCommand();
    return mds.configuration();
  }

  private static String[] prepend(String first, String[] rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
