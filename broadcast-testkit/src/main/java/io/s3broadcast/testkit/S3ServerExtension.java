package io.s3broadcast.testkit;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit 5 extension giving tests a real S3 server, started once per JVM and backend: the backend named
 * by {@link RealS3#backend()} on the test method or class, else by {@code -Ds3broadcast.test.backend}
 * (see {@link S3Backend}).
 *
 * <p>It injects:
 *
 * <ul>
 *   <li>{@link S3Fixture} into test and lifecycle method parameters, constructor parameters, and
 *       non-static, non-final fields of that type: one fixture (fresh bucket, clients) per test method,
 *       the same one in all three places, closed and cleaned after the test. Asked for in a
 *       {@code @BeforeAll} method (or a constructor under {@code @TestInstance(PER_CLASS)}), it is one
 *       fixture for the class, closed after its last test.
 *   <li>{@link S3Server} parameters: the shared server itself.
 * </ul>
 *
 * <p>Works with JUnit Jupiter 5.10 and later; an older one fails the class at once, naming the version
 * it needs. The server is started before the first test of the class, so a backend that cannot start
 * fails the class with the reason (or, for {@code testcontainers} without Docker, skips it).
 */
public final class S3ServerExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(S3ServerExtension.class);
  private static final String PENDING = "constructor-fixtures";

  @Override
  public void beforeAll(ExtensionContext context) {
    JUnitVersion.check();
    QuietLogging.quietNoisyLoggers();
    server(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IllegalAccessException {
    // A constructor resolved under the class's context (JUnit before 5.12, or without opting in to
    // test-method scope) left its fixture for this test: it becomes the test's own.
    S3Fixture fromConstructor = pending(context).remove(Thread.currentThread());
    if (fromConstructor != null) {
      context.getStore(NAMESPACE).put(fixtureKey(context), fromConstructor);
    }
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      for (Class<?> type = instance.getClass(); type != Object.class; type = type.getSuperclass()) {
        for (Field field : type.getDeclaredFields()) {
          int modifiers = field.getModifiers();
          // Final fields were set by the constructor (from this same fixture, if injected there).
          if (field.getType() == S3Fixture.class
              && !Modifier.isStatic(modifiers)
              && !Modifier.isFinal(modifiers)) {
            field.setAccessible(true);
            field.set(instance, fixture(context));
          }
        }
      }
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close(context.getStore(NAMESPACE).remove(fixtureKey(context), S3Fixture.class));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close(context.getStore(NAMESPACE).remove(fixtureKey(context), S3Fixture.class));
    // Fixtures of constructors whose test never ran (instantiation failed after resolving them).
    Map<Thread, S3Fixture> left = pending(context);
    List<S3Fixture> unclaimed = new ArrayList<>(left.values());
    left.clear();
    unclaimed.forEach(S3ServerExtension::close);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == S3Fixture.class || type == S3Server.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    try {
      if (type == S3Server.class) {
        return server(context);
      }
      if (parameter.getDeclaringExecutable() instanceof Constructor
          && context.getTestMethod().isEmpty()
          && context.getTestInstanceLifecycle().orElse(TestInstance.Lifecycle.PER_METHOD)
              == TestInstance.Lifecycle.PER_METHOD) {
        // A new instance per test, built under the class's context: hand this test its own fixture
        // through beforeEach, which runs next on this thread.
        return pending(context)
            .computeIfAbsent(Thread.currentThread(), t -> S3Fixture.create(server(context), testName(context)));
      }
      return fixture(context);
    } catch (RuntimeException e) {
      throw new ParameterResolutionException("no " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /** The server for this context's backend: {@link RealS3#backend()} nearest the test, else the property. */
  static S3Server server(ExtensionContext context) {
    return backend(context).shared();
  }

  static S3Backend backend(ExtensionContext context) {
    for (Optional<ExtensionContext> c = Optional.of(context); c.isPresent(); c = c.get().getParent()) {
      Optional<AnnotatedElement> element = c.get().getElement();
      if (element.isPresent()) {
        Optional<RealS3> realS3 = AnnotationSupport.findAnnotation(element.get(), RealS3.class);
        if (realS3.isPresent() && !realS3.get().backend().isBlank()) {
          return S3Backend.of(realS3.get().backend());
        }
      }
    }
    return S3Backend.selected();
  }

  /** One fixture per context (test method, or class for {@code @BeforeAll}), closed after it. */
  static S3Fixture fixture(ExtensionContext context) {
    // Keyed by unique id: a method must not pick up its class's @BeforeAll fixture from the parent store.
    return context
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            fixtureKey(context), k -> S3Fixture.create(server(context), testName(context)), S3Fixture.class);
  }

  private static String fixtureKey(ExtensionContext context) {
    return "fixture@" + context.getUniqueId();
  }

  /** Constructor fixtures waiting for their test's beforeEach, by thread, in the class's store. */
  @SuppressWarnings("unchecked")
  private static Map<Thread, S3Fixture> pending(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(PENDING + "@" + classContext.getUniqueId(), k -> new ConcurrentHashMap<>(), Map.class);
  }

  private static void close(S3Fixture fixture) {
    if (fixture != null) {
      fixture.close();
    }
  }

  private static String testName(ExtensionContext context) {
    return context
        .getTestMethod()
        .map(m -> m.getName())
        .orElseGet(() -> context.getTestClass().map(Class::getSimpleName).orElse("test"));
  }
}
