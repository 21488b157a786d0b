/**
 * The {@code leader} actuator endpoint: who leads each election, and operations to force
 * leadership to a node or force a re-election.
 */
@NullMarked
package io.github.dbleader.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
