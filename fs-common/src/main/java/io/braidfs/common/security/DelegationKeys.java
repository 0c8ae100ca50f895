package io.braidfs.common.security;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.SigningKey;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The delegation keys a data server received from the MDS, checking tokens by their key and max
 * date only (the MDS alone knows renewals and cancellations; it refuses a cancelled token's holder
 * the capability tokens every data access needs).
 *
 * <p>Thread-safety: thread-safe; the key set is replaced whole.
 */
public final class DelegationKeys implements DelegationTokenPasswords {
  private volatile Map<Integer, byte[]> keys = Map.of();

  /**
   * Replaces the key set with the MDS's (registration and every heartbeat answer): the data
   * servers' halves only.
   */
  public void update(io.braidfs.proto.DelegationKeys fromMds) {
    Map<Integer, byte[]> m = new HashMap<>();
    for (SigningKey k : fromMds.getKeysList()) {
      m.put(k.getKeyId(), k.getSecret().toByteArray());
    }
    keys = Map.copyOf(m);
  }

  @Override
  public boolean dataServer() {
    return true;
  }

  @Override
  public byte[] passwordOf(DelegationTokenIdentifier id, byte[] identifier, long nowMs)
      throws IOException {
    if (id.maxMs() < nowMs) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          "delegation token " + id.sequence() + " of " + id.owner() + " has passed its max date",
          null);
    }
    byte[] key = keys.get(id.keyId());
    if (key == null) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          "delegation token "
              + id.sequence()
              + " names key "
              + id.keyId()
              + ", which this server does not hold (expired, or not yet received from the MDS)",
          null);
    }
    return DelegationTokenSecrets.halfPassword(key, identifier);
  }
}
