/**
 * The Braid data server: chunk replicas on local disks with CRC32C checksums, served to clients
 * directly and replicated along write chains. It trusts only capability tokens signed by the MDS.
 */
package io.braidfs.dataserver;
