package io.braidfs.dataserver;

import com.google.protobuf.ByteString;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.common.token.TokenSigner;
import io.braidfs.proto.SigningKey;
import io.braidfs.proto.SigningKeys;
import java.util.Random;

/**
 * Issues capability tokens the way the MDS does (fs-mds {@code Namespace.token}): one signing key,
 * tokens for a client on one file generation, all chunks, signed with the real {@link TokenSigner}.
 * {@link #signingKeys()} is the message the MDS sends a data server in its registration answer.
 * fs-common's own token fixtures are package-private to its token package, so this module has its
 * own.
 *
 * <p>Thread-safety: immutable.
 */
final class TokenMint {
  /** The id of a new namespace's first key (fs-mds SigningKeyRing starts at 1 as well). */
  static final int KEY_ID = 1;

  /** Every chunk index a token may cover (the MDS issues tokens for all chunks of a file). */
  static final long ALL_CHUNKS = 0xFFFF_FFFFL;

  /** The MDS epoch tokens carry; a data server that never registered accepts any epoch. */
  static final long EPOCH = 1;

  private final int keyId;
  private final byte[] secret;
  private final TokenSigner signer;

  /** A mint with key {@code keyId} made from {@code seed}; different seeds give different keys. */
  TokenMint(int keyId, int seed) {
    this.keyId = keyId;
    this.secret = new byte[32];
    new Random(seed).nextBytes(secret);
    this.signer = new TokenSigner(keyId, secret);
  }

  /** The key ring as the MDS sends it to data servers (RegisterDataServerResponse). */
  SigningKeys signingKeys() {
    return SigningKeys.newBuilder()
        .setCurrent(
            SigningKey.newBuilder()
                .setKeyId(keyId)
                .setSecret(ByteString.copyFrom(secret))
                .setExpiresNs(Long.MAX_VALUE))
        .build();
  }

  /**
   * A read-write token for {@code client} on every chunk of {@code file} at {@code generation},
   * valid from a minute ago for ten minutes (the MDS's lifetime); unsigned, to be adjusted.
   */
  CapabilityToken.Builder token(ClientId client, long file, long generation) {
    long now = System.currentTimeMillis();
    return CapabilityToken.builder()
        .keyId(keyId)
        .mdsEpoch(EPOCH)
        .clientId(client)
        .fileId(file)
        .fileGeneration(generation)
        .chunks(0, ALL_CHUNKS)
        .modes(CapabilityToken.READ | CapabilityToken.WRITE)
        .validity(now - 60_000, now + 10 * 60_000);
  }

  /** The signed bytes of {@code token}, as they travel in a request's token field. */
  ByteString sign(CapabilityToken.Builder token) {
    return ByteString.copyFrom(signer.sign(token.build()));
  }
}
