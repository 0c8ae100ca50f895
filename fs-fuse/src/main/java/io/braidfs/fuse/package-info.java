/** A FUSE mount of Braid on jnr-fuse, built on the Braid client library. */
package io.braidfs.fuse;
