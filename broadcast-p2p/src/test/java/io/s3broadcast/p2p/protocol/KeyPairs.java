package io.s3broadcast.p2p.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Key pairs for TLS tests, made by the JDK's keytool in a temporary directory; nothing is committed. */
final class KeyPairs {

    static final char[] PASSWORD = "test-only".toCharArray();

    private KeyPairs() {
    }

    /** A PKCS#12 key store with a fresh self-signed EC key pair under alias {@code name}. */
    static KeyStore generate(Path dir, String name) throws IOException, InterruptedException, GeneralSecurityException {
        Path store = dir.resolve(name + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", name, "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=" + name, "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)))
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + Files.readString(dir.resolve(name + ".log")));
        }
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD);
            return ks;
        }
    }

    /** A trust store holding the certificates of {@code stores}. */
    static KeyStore trusting(KeyStore... stores) throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (KeyStore ks : stores) {
            String alias = ks.aliases().nextElement();
            trust.setCertificateEntry("trusted-" + i++, ks.getCertificate(alias));
        }
        return trust;
    }
}
