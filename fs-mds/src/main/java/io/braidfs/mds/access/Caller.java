package io.braidfs.mds.access;

import io.braidfs.common.rpc.CallerContext;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Who a permission check is for: the user a request acts as and the user's groups, as the client
 * stated them in its hello (ARCHITECTURE section 8: clients authenticate to the cluster, then state
 * their user and groups; the MDS does not look groups up itself).
 *
 * <p>Thread-safety: immutable.
 *
 * @param user the user name; not empty
 * @param groups the user's groups, in the order given, without duplicates; unmodifiable
 */
public record Caller(String user, Set<String> groups) {
  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException if {@code user} or a group name is empty
   * @throws NullPointerException if {@code user}, {@code groups} or a group name is null
   */
  public Caller {
    Objects.requireNonNull(user, "user");
    if (user.isEmpty()) {
      throw new IllegalArgumentException("the user name is empty");
    }
    Set<String> copy = new LinkedHashSet<>();
    for (String g : groups) {
      Objects.requireNonNull(g, "group");
      if (g.isEmpty()) {
        throw new IllegalArgumentException("user " + user + " has an empty group name");
      }
      copy.add(g);
    }
    groups = Collections.unmodifiableSet(copy);
  }

  /**
   * A caller with these groups.
   *
   * @throws IllegalArgumentException if {@code user} or a group name is empty
   */
  public static Caller of(String user, Collection<String> groups) {
    return new Caller(user, new LinkedHashSet<>(groups));
  }

  /**
   * A caller with these groups, in this order.
   *
   * @throws IllegalArgumentException if {@code user} or a group name is empty
   */
  public static Caller of(String user, String... groups) {
    return new Caller(user, new LinkedHashSet<>(Arrays.asList(groups)));
  }

  /**
   * The caller a connection's hello established.
   *
   * @throws IllegalArgumentException if the context's user or a group name is empty
   */
  public static Caller of(CallerContext context) {
    return new Caller(context.user(), new LinkedHashSet<>(context.groups()));
  }

  /** Whether the caller is a member of {@code group}. */
  public boolean isMemberOf(String group) {
    return groups.contains(group);
  }

  @Override
  public String toString() {
    return user + groups;
  }
}
