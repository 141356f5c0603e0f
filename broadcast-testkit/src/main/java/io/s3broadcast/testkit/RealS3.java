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
 *
 * <pre>{@code
 * @RealS3                          // the backend of -Ds3broadcast.test.backend, else S3Proxy
 * @RealS3(backend = "localstack")  // this class always runs against LocalStack
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(S3ServerExtension.class)
public @interface RealS3 {

  /**
   * The backend for this class or method, by {@link S3Backend#id()}: {@code s3proxy}, {@code
   * localstack}, {@code testcontainers} or {@code external}. Empty (the default): the one named by
   * {@code -Ds3broadcast.test.backend} or {@code S3BROADCAST_TEST_BACKEND}, else {@code s3proxy}. A
   * method's value wins over its class's, a nested class's over its enclosing class's.
   */
  String backend() default "";
}
