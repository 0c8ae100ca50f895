/** The clock abstraction injected wherever Braid reads time, so tests can drive time by hand. */
package io.braidfs.common.clock;
