package io.github.dbleader.election;

import org.jspecify.annotations.Nullable;

/**
 * Work that must only be committed by the leader of a given term. Runs inside the fenced
 * transaction: use the application's {@code JdbcTemplate} (or anything bound to the same
 * {@code DataSource} through Spring's transaction synchronization) and the writes commit
 * or roll back together with the fence.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface FencedCallback<T extends @Nullable Object> {

	/**
	 * Do the work.
	 * @param term the term under which the work runs (the fencing token); write it along
	 * with the work if other systems should reject stale leaders too
	 * @return a result
	 */
	T doInFence(long term);

}
