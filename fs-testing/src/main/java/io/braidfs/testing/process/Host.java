package io.braidfs.testing.process;

/**
 * One simulated host of a {@link HostNetwork}: a Linux network namespace whose only interfaces are
 * its loopback and {@code eth0}, a veth whose other end is a port of the run's bridge.
 *
 * <p>Thread-safety: immutable.
 *
 * @param name the host's name in the run, such as {@code ds1}
 * @param namespace the network namespace ({@code ip netns exec NAMESPACE ...})
 * @param address its IPv4 address on the bridge, such as {@code 10.71.4.3}
 * @param switchPort the name of its cable's far end, in the switch namespace
 */
public record Host(String name, String namespace, String address, String switchPort) {}
