/**
 * Authentication of RPC peers: Kerberos through the JDK's GSS-API in each connection's Hello
 * ({@link io.braidfs.common.security.KerberosAuthenticator} on servers, {@link
 * io.braidfs.common.security.KerberosCredentials} on clients), Hadoop-style auth_to_local rules
 * ({@link io.braidfs.common.security.KerberosNameMapper}) and the server's own group lookup. {@link
 * io.braidfs.common.security.Security} builds them from the {@code braid.security.*} keys.
 */
@NullMarked
package io.braidfs.common.security;

import org.jspecify.annotations.NullMarked;
