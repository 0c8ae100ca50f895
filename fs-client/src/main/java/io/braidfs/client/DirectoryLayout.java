package io.braidfs.client;

/**
 * A directory's layout policy, as {@link BraidClient#layoutPolicy} answers it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param policy the fields set on the directory itself; 0 where inherited
 * @param effective the layout a new file created in the directory gets: the policy, then its
 *     ancestors', then the MDS's defaults (every field set)
 */
public record DirectoryLayout(LayoutPolicy policy, LayoutPolicy effective) {}
