package io.s3broadcast.s3;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether {@code httpClient=auto} may use the AWS CRT: its classes are on the class path and its native library
 * loads (it may not, e.g. on a libc it was not built for, or with a temporary directory mounted noexec). Asked once
 * per class loader. Names the CRT's classes by string only, so that it loads without them, unlike
 * {@link CrtHttpClient}.
 */
final class CrtLoads {

    private static final Logger LOG = LoggerFactory.getLogger(CrtLoads.class);
    private static final boolean LOADS = check(CrtLoads.class.getClassLoader());

    private CrtLoads() {
    }

    static boolean loads() {
        return LOADS;
    }

    static boolean check(ClassLoader loader) {
        try {
            Class.forName(CrtHttpClient.CLIENT_CLASS, false, loader);
            // Initialising CRT loads its native library.
            Class.forName("software.amazon.awssdk.crt.CRT", true, loader);
            return true;
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            return false;
        } catch (LinkageError | RuntimeException e) {
            LOG.info("httpClient=auto: the AWS CRT is on the class path but does not load ({}); using Netty",
                    e.toString());
            return false;
        }
    }
}
