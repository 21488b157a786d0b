package io.github.dbleader.election;

import java.time.Duration;

/**
 * Why this node's heartbeat fails: the kind and the cause of the last failed statement,
 * known without touching the database ({@link Election#heartbeatFailure()}). The
 * heartbeat fails from its first failed statement until a round succeeds whole. The kind
 * says what to do: nothing for a {@link DatabaseFailureKind#CONFLICT} that passes, look
 * at the database or the network when it is
 * {@link DatabaseFailureKind#databaseUnreachable() unreachable}, at the grants or the
 * schema when the database refuses the statements.
 *
 * @param kind what made the last failed statement fail
 * @param cause the last failure, as logged: the exception and, where it adds something,
 * its root cause (e.g. the server's message)
 * @param failingFor how long since the first failed round after the last round that
 * succeeded
 * @param persistent whether that is longer than {@code lease - guard}: no passing fault
 * (health is then {@code DOWN}, whatever the kind)
 */
public record HeartbeatFailure(DatabaseFailureKind kind, String cause, Duration failingFor, boolean persistent) {

}
