package io.braidfs.common.token;

import static io.braidfs.common.token.CapabilityToken.READ;
import static io.braidfs.common.token.CapabilityToken.WRITE;

import java.util.Random;

/** Keys, ids and a typical token shared by the token tests. */
final class TokenFixtures {
  static final long NOW = 1_780_000_000_000L; // a fixed "now", epoch milliseconds
  static final long NOT_BEFORE = NOW - 60_000;
  static final long EXPIRY = NOW + 10 * 60_000;
  static final ClientId CLIENT = new ClientId(0x0123456789abcdefL, 0xfedcba9876543210L);
  static final ClientId OTHER_CLIENT = new ClientId(0x0123456789abcdefL, 0xfedcba9876543211L);
  static final long FILE = 4242;
  static final long GENERATION = 3;
  static final long FIRST_CHUNK = 10;
  static final long LAST_CHUNK = 19;
  static final long EPOCH = 7;

  private TokenFixtures() {}

  /** A deterministic 256-bit key; different seeds give different keys. */
  static byte[] key(int seed) {
    byte[] key = new byte[32];
    new Random(seed).nextBytes(key);
    return key;
  }

  /** A read-write token for chunks 10-19 of file 4242/3, signed by key {@code keyId}. */
  static CapabilityToken.Builder token(int keyId) {
    return CapabilityToken.builder()
        .keyId(keyId)
        .mdsEpoch(EPOCH)
        .clientId(CLIENT)
        .fileId(FILE)
        .fileGeneration(GENERATION)
        .chunks(FIRST_CHUNK, LAST_CHUNK)
        .chunkVersionFloor(100)
        .modes(READ | WRITE)
        .validity(NOT_BEFORE, EXPIRY);
  }

  /** A request the fixture token allows. */
  static AccessRequest request(long chunk, int mode) {
    return new AccessRequest(CLIENT, FILE, GENERATION, chunk, mode, EPOCH);
  }

  static AccessRequest readRequest() {
    return request(FIRST_CHUNK, READ);
  }
}
