/**
 * The registration of {@code @LeaderOnly} methods' elections and the error of a method
 * that names none, independent of Spring Boot.
 */
@NullMarked
package io.github.dbleader.autoconfigure.aop;

import org.jspecify.annotations.NullMarked;
