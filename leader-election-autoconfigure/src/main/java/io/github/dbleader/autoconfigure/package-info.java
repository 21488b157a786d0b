/**
 * Auto-configuration of leader election on the application's own {@code DataSource}:
 * properties under {@code leader-election.*}, the schema initializer, the election
 * service and its lifecycle.
 */
@NullMarked
package io.github.dbleader.autoconfigure;

import org.jspecify.annotations.NullMarked;
