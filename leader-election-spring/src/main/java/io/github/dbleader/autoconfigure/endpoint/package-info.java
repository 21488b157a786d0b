/**
 * What the actuator endpoints read the database with, independent of Spring Boot: the
 * time bound of their work ({@code TimeBound}), the lease reads and their errors.
 */
@NullMarked
package io.github.dbleader.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
