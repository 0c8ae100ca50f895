package io.braidfs.fuse;

import io.braidfs.client.BraidClient;
import io.braidfs.client.FileAttributes;
import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import ru.serce.jnrfuse.AbstractFuseFS;
import ru.serce.jnrfuse.struct.FuseContext;

/**
 * The process calling the FUSE operation the current libfuse thread runs, from {@code
 * fuse_get_context}: the client that acts as its user ({@link ClientPool}, with the process's own
 * supplementary groups from {@link CallerGroups}), its uid, and the attributes its own changes
 * answered ({@link RecentAttributes}, kept per uid), for the getattr libfuse sends next.
 *
 * <p>Thread-safety: thread-safe; each method reads the context of the thread calling it.
 */
final class Caller {
  private final AbstractFuseFS fs;
  private final ClientPool clients;
  private final RecentAttributes recent;
  private final CallerGroups groups = new CallerGroups();

  Caller(AbstractFuseFS fs, ClientPool clients, RecentAttributes recent) {
    this.fs = fs;
    this.clients = clients;
    this.recent = recent;
  }

  /** The client of the calling process's user and groups. */
  BraidClient client() throws IOException {
    FuseContext ctx = fs.getContext();
    int pid = (int) ctx.pid.get();
    return clients.client((int) ctx.uid.get(), (int) ctx.gid.get(), groups.of(pid));
  }

  int uid() {
    return (int) fs.getContext().uid.get();
  }

  /** The names of the calling process's groups, primary and supplementary. */
  List<String> groupNames() {
    FuseContext ctx = fs.getContext();
    return clients.groupNames(
        (int) ctx.uid.get(), (int) ctx.gid.get(), groups.of((int) ctx.pid.get()));
  }

  /** Keeps what a change of {@code path} answered for the getattr libfuse sends next; returns 0. */
  int changed(String path, FileAttributes a) {
    recent.put(path, uid(), a);
    return 0;
  }

  /** What a change of {@code path} by this caller's uid answered, taken once, or null. */
  @Nullable FileAttributes recentChange(String path) {
    return recent.take(path, uid());
  }
}
