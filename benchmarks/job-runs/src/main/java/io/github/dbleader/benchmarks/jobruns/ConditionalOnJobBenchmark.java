package io.github.dbleader.benchmarks.jobruns;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/**
 * The bean exists in the job benchmark only ({@code bench.scale} missing or 0): the scale
 * benchmark measures the elections, roles or locks alone, without a job's statements.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnProperty(name = "bench.scale", havingValue = "0", matchIfMissing = true)
public @interface ConditionalOnJobBenchmark {

}
