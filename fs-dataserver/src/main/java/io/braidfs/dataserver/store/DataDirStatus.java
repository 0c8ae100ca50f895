package io.braidfs.dataserver.store;

import java.nio.file.Path;

/**
 * One data directory as the store sees it now.
 *
 * <p>Thread-safety: immutable.
 *
 * @param path the directory
 * @param storageId the random id written into it when it was formatted
 * @param device the id of the device its file system is on ({@code "dev:2049"}), the same for every
 *     directory on that file system of this machine; empty when the platform does not say
 * @param capacityBytes bytes of replicas it may hold (its file system's size, or the configured
 *     capacity, less the reserved space)
 * @param usedBytes bytes of replicas it holds (data and meta files)
 * @param availableBytes bytes a new write may still use: capacity minus used, and no more than its
 *     file system has free beyond the reserved space
 * @param failed true once an I/O error other than a full disk made the store stop using it
 */
public record DataDirStatus(
    Path path,
    String storageId,
    String device,
    long capacityBytes,
    long usedBytes,
    long availableBytes,
    boolean failed) {}
