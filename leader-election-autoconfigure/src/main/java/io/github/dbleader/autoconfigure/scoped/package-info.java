/**
 * Auto-configuration of leader-scoped services: every
 * {@code io.github.dbleader.election.scoped.LeaderScopedService} bean is started while
 * this node leads its election or owns a partition of its group, and stopped when that
 * ends or the application shuts down.
 */
@NullMarked
package io.github.dbleader.autoconfigure.scoped;

import org.jspecify.annotations.NullMarked;
