/**
 * The lock reads and releases of the {@code locks} endpoint, bounded in time and
 * independent of Spring Boot.
 */
@NullMarked
package io.github.dbleader.autoconfigure.locks;

import org.jspecify.annotations.NullMarked;
