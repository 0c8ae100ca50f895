package io.braidfs.cli;

import io.braidfs.client.DirectoryLayout;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.LayoutPolicy;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.layout.Layout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code braid fs layout get|set}: how a directory lays out the files created in it (stripe unit,
 * stripe width, chunk size, replication), or how one file is laid out.
 *
 * <p>{@code get} shows each field's effective value and whether the directory sets it or inherits
 * it. {@code set} changes only the fields named and keeps the rest of the directory's policy;
 * {@code set --clear} removes the policy. Files already there keep their layouts.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "layout",
    mixinStandardHelpOptions = true,
    description = "Shows or sets a directory's layout policy for new files.",
    subcommands = {FsLayoutCommand.Get.class, FsLayoutCommand.Set.class})
final class FsLayoutCommand implements Runnable {
  @ParentCommand @Nullable FsCommand fs;

  @Spec @Nullable CommandSpec spec;

  /** {@code braid fs layout} alone: a subcommand is missing. */
  @Override
  public void run() {
    throw new ParameterException(
        FsNamespaceCommands.spec(spec).commandLine(), "missing a subcommand (get or set)");
  }

  /** {@code braid fs layout get PATH}. */
  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = {
        "Shows the layout new files in a directory get, field by field, and whether the"
            + " directory sets each one or inherits it; for a file, the file's layout."
      })
  static final class Get implements Callable<Integer> {
    @ParentCommand @Nullable FsLayoutCommand layout;

    @Spec @Nullable CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "The directory or file.")
    String path = "";

    @Override
    public Integer call() {
      CommandSpec s = FsNamespaceCommands.spec(spec);
      return fs(layout)
          .run(
              s,
              session -> {
                String p = FsSession.resolve(path);
                FileAttributes a = session.stat(p);
                if (a.isDirectory()) {
                  DirectoryLayout r = session.layoutPolicy(p);
                  FsNamespaceCommands.print(s, describe(p, r.policy(), r.effective()));
                } else {
                  FsNamespaceCommands.print(s, describe(p, a.layout()));
                }
                return Braid.EXIT_OK;
              });
    }
  }

  /** {@code braid fs layout set PATH [--stripe-unit SIZE] ...}. */
  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Sets fields of a directory's layout policy; the fields not named keep their setting.",
        "New files in the directory and below get it; existing files keep their layouts."
      })
  static final class Set implements Callable<Integer> {
    @ParentCommand @Nullable FsLayoutCommand layout;

    @Spec @Nullable CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "The directory.")
    String path = "";

    @Option(
        names = "--stripe-unit",
        paramLabel = "SIZE",
        converter = DataSizeConverter.class,
        description = "Bytes stored in one chunk before the next, such as 1MiB.")
    @Nullable DataSize stripeUnit;

    @Option(
        names = "--stripe-width",
        paramLabel = "N",
        description = "Chunks in a chunk set, over which stripe units rotate.")
    @Nullable Integer stripeWidth;

    @Option(
        names = "--chunk-size",
        paramLabel = "SIZE",
        converter = DataSizeConverter.class,
        description = "Most bytes one chunk holds, a multiple of the stripe unit, such as 64MiB.")
    @Nullable DataSize chunkSize;

    @Option(names = "--replication", paramLabel = "N", description = "Replicas of every chunk.")
    @Nullable Integer replication;

    @Option(names = "--clear", description = "Remove the directory's policy: inherit every field.")
    boolean clear;

    @Override
    public Integer call() {
      CommandSpec s = FsNamespaceCommands.spec(spec);
      check(s.commandLine());
      return fs(layout)
          .run(
              s,
              session -> {
                String p = FsSession.resolve(path);
                if (clear) {
                  session.clearLayoutPolicy(p);
                } else {
                  LayoutPolicy b = session.layoutPolicy(p).policy();
                  if (stripeUnit != null) {
                    b = b.withStripeUnit((int) stripeUnit.toBytes());
                  }
                  if (stripeWidth != null) {
                    b = b.withStripeWidth(stripeWidth);
                  }
                  if (chunkSize != null) {
                    b = b.withChunkSize(chunkSize.toBytes());
                  }
                  if (replication != null) {
                    b = b.withReplication(replication);
                  }
                  session.setLayoutPolicy(p, b);
                }
                DirectoryLayout r = session.layoutPolicy(p);
                FsNamespaceCommands.print(s, describe(p, r.policy(), r.effective()));
                return Braid.EXIT_OK;
              });
    }

    /** Usage errors: nothing to set, --clear with fields, values no layout can have. */
    private void check(CommandLine cmd) {
      boolean any =
          stripeUnit != null || stripeWidth != null || chunkSize != null || replication != null;
      if (clear && any) {
        throw new ParameterException(cmd, "--clear cannot be combined with fields to set");
      }
      if (!clear && !any) {
        throw new ParameterException(
            cmd,
            "name at least one of --stripe-unit, --stripe-width, --chunk-size, --replication,"
                + " or --clear");
      }
      if (stripeUnit != null
          && (stripeUnit.toBytes() < 1 || stripeUnit.toBytes() > Layout.MAX_STRIPE_UNIT)) {
        throw new ParameterException(
            cmd,
            "--stripe-unit: "
                + stripeUnit
                + " is not from 1B to "
                + FsFormat.size(Layout.MAX_STRIPE_UNIT));
      }
      if (chunkSize != null && chunkSize.toBytes() < 1) {
        throw new ParameterException(cmd, "--chunk-size: 0B is not a chunk size");
      }
      if (stripeWidth != null && stripeWidth < 1) {
        throw new ParameterException(cmd, "--stripe-width: " + stripeWidth + " is less than 1");
      }
      if (replication != null && replication < 1) {
        throw new ParameterException(cmd, "--replication: " + replication + " is less than 1");
      }
    }
  }

  /** A directory's layout: each field's effective value, set here or inherited. */
  static List<String> describe(String path, LayoutPolicy policy, LayoutPolicy effective) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("path:", path + " (directory)"));
    rows.add(
        field(
            "stripe-unit:",
            FsFormat.size(Integer.toUnsignedLong(effective.stripeUnit())),
            policy.stripeUnit() != 0));
    rows.add(
        field(
            "stripe-width:",
            Integer.toUnsignedString(effective.stripeWidth()),
            policy.stripeWidth() != 0));
    rows.add(field("chunk-size:", FsFormat.size(effective.chunkSize()), policy.chunkSize() != 0));
    rows.add(
        field(
            "replication:",
            Integer.toUnsignedString(effective.replication()),
            policy.replication() != 0));
    return FsFormat.table(rows);
  }

  /** A file's layout. */
  static List<String> describe(String path, Layout l) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("path:", path + " (file)"));
    rows.add(List.of("stripe-unit:", FsFormat.size(l.stripeUnit())));
    rows.add(List.of("stripe-width:", Integer.toString(l.stripeWidth())));
    rows.add(List.of("chunk-size:", FsFormat.size(l.chunkSize())));
    rows.add(List.of("replication:", Integer.toString(l.replication())));
    return FsFormat.table(rows);
  }

  private static List<String> field(String name, String value, boolean setHere) {
    return List.of(name, value + (setHere ? " (set here)" : " (inherited)"));
  }

  private static FsCommand fs(@Nullable FsLayoutCommand layout) {
    if (layout == null) {
      throw new IllegalStateException("not run as a subcommand of braid fs layout");
    }
    return FsNamespaceCommands.parent(layout.fs);
  }

  /**
   * Reads a size such as {@code 1MiB} ({@link DataSize#parse}); a bad one is a usage error naming
   * the option.
   *
   * <p>Thread-safety: stateless.
   */
  static final class DataSizeConverter implements ITypeConverter<DataSize> {
    @Override
    public DataSize convert(String value) {
      try {
        return DataSize.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
