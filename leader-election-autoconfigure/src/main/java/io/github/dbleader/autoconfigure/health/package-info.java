/**
 * Health of the elections: one indicator per election under the {@code leader}
 * contributor.
 */
@NullMarked
package io.github.dbleader.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
