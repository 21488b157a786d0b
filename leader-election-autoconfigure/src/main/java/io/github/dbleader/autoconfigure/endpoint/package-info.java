/**
 * The {@code leader} actuator endpoint: who leads each election, and operations to force
 * leadership to a node or force a re-election. Also what the starter's endpoints share:
 * the time bound of their work ({@code TimeBound}) and their errors
 * ({@code EndpointErrors}, {@code ErrorDescriptor}).
 */
@NullMarked
package io.github.dbleader.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
