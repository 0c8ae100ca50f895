package io.braidfs.client;

/**
 * The read-ahead memory all streams of one client share ({@link BraidClient#prefetchStats()}):
 * streams reserve a block's bytes before they ask for it and give them back when it is consumed or
 * dropped; a stream that cannot reserve reads ahead less, never waits.
 *
 * <p>Thread-safety: immutable (a snapshot).
 *
 * @param limit the most bytes read-ahead may hold ({@code braid.client.prefetch.budget})
 * @param used the bytes read-ahead held when the snapshot was taken
 * @param peak the most bytes read-ahead has held at once since the client started
 */
public record PrefetchStats(long limit, long used, long peak) {}
