package io.s3broadcast.bench;

/**
 * What the numbers were measured on.
 *
 * @param cores processors available to the JVM
 * @param java the Java runtime version
 * @param os operating system name, version and architecture
 * @param maxHeapBytes the JVM's maximum heap
 */
record Machine(int cores, String java, String os, long maxHeapBytes) {

    static Machine current() {
        return new Machine(Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                Runtime.getRuntime().maxMemory());
    }
}
