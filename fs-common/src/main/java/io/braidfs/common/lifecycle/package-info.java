/**
 * The life cycle every long-lived Braid component follows: construct without I/O, start once, close
 * once and idempotently, with validated state transitions.
 */
package io.braidfs.common.lifecycle;
