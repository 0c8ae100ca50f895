package io.braidfs.mds.access;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.util.List;

/**
 * The configuration keys of the MDS's permission checks ({@code braid.mds.security.*}); {@link
 * Permissions#from} reads them. Registered for {@link java.util.ServiceLoader} in {@code
 * META-INF/services}.
 *
 * <p>Component {@code mds}, area {@code security}: the MDS's key sets share the component.
 *
 * <p>Superuser default: {@code root}, not HDFS's "whoever started the NameNode". The superuser must
 * be the same on every MDS replica (a failover must not change who is superuser), the generated
 * configuration reference must not depend on the environment, and FUSE users expect root to be the
 * superuser. Clients state their own user (ARCHITECTURE section 8), so any authenticated client can
 * claim any name; the superuser's name is not a secret.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsSecurityConfigKeys implements ConfigKeySet {
  public static final ConfigKey<Boolean> PERMISSIONS =
      ConfigKey.bool(
          "braid.mds.security.permissions",
          true,
          "Check POSIX permissions; false lets every caller do everything (like HDFS"
              + " dfs.permissions.enabled=false); mode, owner and group are still stored.");

  public static final ConfigKey<String> SUPERUSER =
      ConfigKey.string(
          "braid.mds.security.superuser",
          "root",
          "User that passes every permission check (execute on a file still needs an x bit);"
              + " the same on every MDS; empty for none.");

  public static final ConfigKey<String> SUPERGROUP =
      ConfigKey.string(
          "braid.mds.security.supergroup",
          "supergroup",
          "Group whose members are superusers too, as HDFS dfs.permissions.superusergroup;"
              + " empty for none.");

  private static final List<ConfigKey<?>> KEYS = List.of(PERMISSIONS, SUPERUSER, SUPERGROUP);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsSecurityConfigKeys() {}

  /** Always {@code mds}. */
  @Override
  public String component() {
    return "mds";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
