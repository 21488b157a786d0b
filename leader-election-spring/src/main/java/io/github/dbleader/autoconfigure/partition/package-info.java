/**
 * Partition groups' application events and lifecycle, independent of Spring Boot.
 */
@NullMarked
package io.github.dbleader.autoconfigure.partition;

import org.jspecify.annotations.NullMarked;
