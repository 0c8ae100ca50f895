package io.braidfs.cli;

import static io.braidfs.cli.FsNamespaceCommands.parent;
import static io.braidfs.cli.FsNamespaceCommands.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code braid fs chmod}, {@code chown} and {@code chgrp}, as {@code hdfs dfs} and coreutils have
 * them, with {@code -R}. Each path's failure is one line; the others go on.
 *
 * <p>Thread-safety: picocli runs one command on one thread.
 */
final class FsPermissionCommands {
  private FsPermissionCommands() {}

  /** {@code -R}, the same for all three commands. A picocli mixin. */
  static final class Recursive {
    @Option(
        names = {"-R", "--recursive"},
        description = "Also everything under each directory (symlinks below it left alone).")
    boolean on;
  }

  /** {@code braid fs chmod [-R] MODE PATH...}. */
  @Command(
      name = "chmod",
      mixinStandardHelpOptions = true,
      description = {
        "Changes permission bits: octal (755, 1777) or symbolic (u+x, go-w, a=rX, +t).",
        "Only the owner or a superuser may."
      })
  static final class Chmod implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Mixin Recursive recursive = new Recursive();

    @Parameters(index = "0", paramLabel = "MODE", description = "The mode or change.")
    String mode = "";

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "PATH",
        description = "What to change.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      ModeChange change;
      try {
        change = ModeChange.parse(mode);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.ParameterException(spec(spec).commandLine(), e.getMessage());
      }
      return parent(fs)
          .run(
              spec(spec),
              session ->
                  session.each(
                      paths,
                      p ->
                          session.tree(
                              p,
                              recursive.on,
                              (path, a) -> {
                                if (a.isSymlink()) {
                                  return;
                                }
                                int next = change.apply(a.mode(), a.isDirectory());
                                if (next != a.mode()) {
                                  session.setPermission(path, next);
                                }
                              })));
    }
  }

  /** {@code braid fs chown [-R] OWNER[:GROUP] PATH...}. */
  @Command(
      name = "chown",
      mixinStandardHelpOptions = true,
      description = {
        "Changes the owner, and the group with OWNER:GROUP (:GROUP changes the group alone).",
        "Only a superuser may change the owner; the owner may change the group to one of theirs."
      })
  static final class Chown implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Mixin Recursive recursive = new Recursive();

    @Parameters(index = "0", paramLabel = "OWNER[:GROUP]", description = "The new owner.")
    String owner = "";

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "PATH",
        description = "What to change.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      int colon = owner.indexOf(':');
      String user = colon < 0 ? owner : owner.substring(0, colon);
      String group = colon < 0 ? "" : owner.substring(colon + 1);
      if (user.isEmpty() && group.isEmpty()) {
        throw new picocli.CommandLine.ParameterException(
            spec(spec).commandLine(), "'" + owner + "' names neither an owner nor a group");
      }
      return change(fs, spec, recursive.on, paths, user.isEmpty() ? null : user, group);
    }
  }

  /** {@code braid fs chgrp [-R] GROUP PATH...}. */
  @Command(
      name = "chgrp",
      mixinStandardHelpOptions = true,
      description = {
        "Changes the group. The owner may change it to one of their groups, a superuser to any."
      })
  static final class Chgrp implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Mixin Recursive recursive = new Recursive();

    @Parameters(index = "0", paramLabel = "GROUP", description = "The new group.")
    String group = "";

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "PATH",
        description = "What to change.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      if (group.isEmpty()) {
        throw new picocli.CommandLine.ParameterException(
            spec(spec).commandLine(), "the group is empty");
      }
      return change(fs, spec, recursive.on, paths, null, group);
    }
  }

  private static int change(
      @Nullable FsCommand fs,
      @Nullable CommandSpec spec,
      boolean recursive,
      List<String> paths,
      @Nullable String user,
      String group) {
    @Nullable String g = group.isEmpty() ? null : group;
    return parent(fs)
        .run(
            spec(spec),
            session ->
                session.each(
                    paths,
                    p ->
                        session.tree(
                            p,
                            recursive,
                            (path, a) -> {
                              if (a.isSymlink()) {
                                return;
                              }
                              if ((user != null && !user.equals(a.user()))
                                  || (g != null && !g.equals(a.group()))) {
                                session.setOwner(path, user, g);
                              }
                            })));
  }
}
