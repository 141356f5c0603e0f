package io.s3broadcast.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class (or method) against a real S3 server: shorthand for
 * {@code @ExtendWith(S3ServerExtension.class)}. See {@link S3ServerExtension} for what gets injected.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(S3ServerExtension.class)
public @interface RealS3 {}
