/**
 * Capability tokens: short-lived, HMAC-signed grants issued by the MDS that let one client read or
 * write a range of chunks of one file on the data servers (ha-meta-security.md section 5.3). The
 * MDS signs with {@link io.braidfs.common.token.TokenSigner}; data servers check every request with
 * {@link io.braidfs.common.token.TokenVerifier} against a {@link io.braidfs.common.token.TokenKeys}
 * ring that they receive from the MDS. Verification reports every failure as a value and never
 * throws for bad token bytes.
 */
@NullMarked
package io.braidfs.common.token;

import org.jspecify.annotations.NullMarked;
