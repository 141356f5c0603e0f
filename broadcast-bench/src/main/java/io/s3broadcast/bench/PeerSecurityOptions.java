package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How a {@code node} secures its peer connections: the group secret (a file, or the environment variable
 * {@code S3BROADCAST_SECRET} that the library reads itself), insecure mode, and mutual TLS from PEM files.
 */
final class PeerSecurityOptions {

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "File holding the group secret every node proves it holds (at least 16 bytes; a trailing"
                    + " newline is ignored). Default: S3BROADCAST_SECRET, else one kept in an s3:// or zk:// registry.")
    Path secretFile;

    @Option(names = "--insecure",
            description = "Accept any peer of the group without a secret (trusted networks only; a static registry"
                    + " without a secret needs this).")
    boolean insecure;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "This node's certificate chain for mutual TLS.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "This node's PKCS#8 private key for mutual TLS.")
    Path tlsKey;

    @Option(names = "--tls-trust", paramLabel = "PEM",
            description = "Certificates this node trusts (the cluster's CA); peers without one are refused.")
    Path tlsTrust;

    /** Whether a secret or insecure mode was chosen (else a one-JVM cluster makes up a random secret). */
    boolean choosesSecret() {
        return secretFile != null || insecure;
    }

    void applyTo(Broadcast.Builder builder) {
        if (secretFile != null) {
            builder.secret(readSecret(secretFile));
        }
        if (insecure) {
            builder.insecure();
        }
        if (tlsCert != null || tlsKey != null || tlsTrust != null) {
            builder.tls(tlsCert, tlsKey, tlsTrust);
        }
    }

    /** The file's bytes without one trailing newline (CR LF or LF), so `openssl rand -hex 32 > f` works. */
    static byte[] readSecret(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            if (text.endsWith("\r\n")) {
                text = text.substring(0, text.length() - 2);
            } else if (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            return text.getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the secret file " + file + ": " + e.getMessage(), e);
        }
    }
}
