package io.s3broadcast.testkit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Resolves {@link TestCluster} parameters of test methods annotated (or whose class is annotated)
 * {@link BroadcastCluster}: one cluster per test, on the test's {@link S3Fixture}, closed after it.
 */
public final class BroadcastClusterExtension implements ParameterResolver, AfterEachCallback {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(BroadcastClusterExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (context.getTestMethod().isEmpty()) {
      throw new ParameterResolutionException(
          "a TestCluster is made per test: ask for it in a @Test or @BeforeEach method, not in "
              + parameter.getDeclaringExecutable());
    }
    try {
      return context
          .getStore(NAMESPACE)
          .getOrComputeIfAbsent(key(context), k -> start(context), TestCluster.class);
    } catch (RuntimeException e) {
      throw new ParameterResolutionException("no TestCluster: " + e.getMessage(), e);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    TestCluster cluster = context.getStore(NAMESPACE).remove(key(context), TestCluster.class);
    if (cluster != null) {
      cluster.close();
    }
  }

  private static TestCluster start(ExtensionContext context) {
    BroadcastCluster settings = annotation(context);
    TestCluster.Builder builder =
        TestCluster.builder(S3ServerExtension.fixture(context))
            .nodes(settings.nodes())
            .strategy(settings.strategy());
    if (settings.pieceSize() > 0) {
      builder.configure((i, node) -> node.pieceSize(settings.pieceSize()));
    }
    return builder.start();
  }

  private static BroadcastCluster annotation(ExtensionContext context) {
    for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
      var found = c.getElement().flatMap(e -> AnnotationSupport.findAnnotation(e, BroadcastCluster.class));
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new ExtensionConfigurationException(
        "a TestCluster parameter needs @BroadcastCluster on the test method or class");
  }

  private static String key(ExtensionContext context) {
    return "cluster@" + context.getUniqueId();
  }
}
