package io.braidfs.mds.namespace;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.layout.Layout;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of the namespace (component {@code mds}): the default layout new files get
 * where no directory policy applies, listing page sizes and token lifetime. Registered for {@link
 * java.util.ServiceLoader} in {@code META-INF/services}, and listed in {@code
 * docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class NamespaceConfigKeys implements ConfigKeySet {
  public static final ConfigKey<DataSize> STRIPE_UNIT =
      ConfigKey.dataSize(
          "braid.mds.layout.stripe-unit",
          DataSize.ofBytes(Layout.DEFAULT_STRIPE_UNIT),
          DataSize.ofBytes(Layout.MIN_STRIPE_UNIT),
          DataSize.ofBytes(Layout.MAX_STRIPE_UNIT),
          "Default stripe unit: consecutive bytes stored in one chunk before the next chunk.");

  public static final ConfigKey<Integer> STRIPE_WIDTH =
      ConfigKey.integer(
          "braid.mds.layout.stripe-width",
          Layout.DEFAULT_STRIPE_WIDTH,
          1,
          Layout.MAX_STRIPE_WIDTH,
          "Default number of chunks in a chunk set, over which stripe units rotate.");

  public static final ConfigKey<DataSize> CHUNK_SIZE =
      ConfigKey.dataSize(
          "braid.mds.layout.chunk-size",
          DataSize.ofBytes(Layout.DEFAULT_CHUNK_SIZE),
          DataSize.ofBytes(Layout.MIN_STRIPE_UNIT),
          DataSize.ofBytes(Layout.MAX_CHUNK_SIZE),
          "Default chunk size, a multiple of the stripe unit.");

  public static final ConfigKey<Integer> REPLICATION =
      ConfigKey.integer(
          "braid.mds.layout.replication",
          Layout.DEFAULT_REPLICATION,
          1,
          Layout.MAX_REPLICATION,
          "Default number of replicas of every chunk.");

  public static final ConfigKey<Integer> MAX_REPLICATION =
      ConfigKey.integer(
          "braid.mds.layout.max-replication",
          Layout.MAX_REPLICATION,
          1,
          Layout.MAX_REPLICATION,
          "Most replicas SetReplication may ask for (HDFS: dfs.replication.max).");

  public static final ConfigKey<Integer> LIST_PAGE =
      ConfigKey.integer(
          "braid.mds.list-page",
          1000,
          1,
          100_000,
          "Entries per ReadDir page when the client asks for no particular number, and the most"
              + " it may ask for is ten times this.");

  public static final ConfigKey<Duration> TOKEN_LIFETIME =
      ConfigKey.duration(
          "braid.mds.token-lifetime",
          Duration.ofHours(1),
          Duration.ofSeconds(10),
          Duration.ofDays(7),
          "How long a capability token from open, create or a location lookup stays valid.");

  public static final ConfigKey<Duration> TOKEN_KEY_INTERVAL =
      ConfigKey.duration(
          "braid.mds.token-key-interval",
          Duration.ofHours(1),
          Duration.ofSeconds(10),
          Duration.ofDays(30),
          "How often the MDS leader rotates the keys capability tokens are signed with; data"
              + " servers hold each key one interval before and after it signs. Raised to the"
              + " token lifetime if shorter.");

  public static final ConfigKey<Duration> DELEGATION_RENEW_INTERVAL =
      ConfigKey.duration(
          "braid.mds.delegation-token.renew-interval",
          Duration.ofDays(1),
          Duration.ofSeconds(10),
          Duration.ofDays(365),
          "How long a delegation token lives after it is issued or renewed, unless renewed again"
              + " (HDFS: dfs.namenode.delegation.token.renew-interval).");

  public static final ConfigKey<Duration> DELEGATION_MAX_LIFETIME =
      ConfigKey.duration(
          "braid.mds.delegation-token.max-lifetime",
          Duration.ofDays(7),
          Duration.ofSeconds(10),
          Duration.ofDays(365),
          "The most a delegation token lives, however often renewed"
              + " (HDFS: dfs.namenode.delegation.token.max-lifetime).");

  public static final ConfigKey<Duration> DELEGATION_KEY_INTERVAL =
      ConfigKey.duration(
          "braid.mds.delegation-token.key-interval",
          Duration.ofDays(1),
          Duration.ofSeconds(10),
          Duration.ofDays(365),
          "How often the key delegation-token passwords derive from is replaced; each is kept"
              + " until its tokens have passed their max lifetime"
              + " (HDFS: dfs.namenode.delegation.key.update-interval).");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          STRIPE_UNIT,
          STRIPE_WIDTH,
          CHUNK_SIZE,
          REPLICATION,
          MAX_REPLICATION,
          LIST_PAGE,
          TOKEN_LIFETIME,
          TOKEN_KEY_INTERVAL,
          DELEGATION_RENEW_INTERVAL,
          DELEGATION_MAX_LIFETIME,
          DELEGATION_KEY_INTERVAL);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public NamespaceConfigKeys() {}

  @Override
  public String component() {
    return "mds";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
