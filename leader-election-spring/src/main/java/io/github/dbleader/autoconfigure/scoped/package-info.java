/**
 * The lifecycle that starts and stops leader-scoped services, independent of Spring Boot.
 */
@NullMarked
package io.github.dbleader.autoconfigure.scoped;

import org.jspecify.annotations.NullMarked;
