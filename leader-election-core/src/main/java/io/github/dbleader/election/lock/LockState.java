package io.github.dbleader.election.lock;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A lock's row as the database showed it.
 *
 * @param name the lock's name, without {@link ClusterLocks#KEY_PREFIX}
 * @param holder the node that took it last, also after it released it or it expired
 * ({@code null} after an operator released it)
 * @param term the term of the last acquisition or operator release
 * @param acquiredAt when it was taken last (database clock)
 * @param expiresAt until when it is taken (database clock): earlier than
 * {@code acquiredAt +
 * atMostFor} once released
 * @param held whether it was taken at the time of the read, by the database clock
 * @param databaseTime the database clock at the time of the read
 */
public record LockState(String name, @Nullable String holder, long term, @Nullable Instant acquiredAt,
		Instant expiresAt, boolean held, Instant databaseTime) {

}
