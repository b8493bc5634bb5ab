package dev.retryagent.it.sdkapps;

import dev.retryagent.it.apps.LayerCalls;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;

/**
 * S3 through the AWS SDK v2 (sync), one client per call, on the HTTP client named by the call: {@code apache},
 * {@code urlconnection}, {@code apache5}. Retries on: the SDK's default strategy for S3 with a 10 ms backoff;
 * off: {@code AwsRetryStrategy.doNotRetry()}. GET is {@code getObjectAsBytes}, the POST {@code deleteObjects}.
 * {@code urlconnection-api-call-timeout}: {@code urlconnection} with an {@code apiCallTimeout} of
 * {@value #API_CALL_TIMEOUT_MS} ms.
 */
public final class AwsSdk2App {
    static final long API_CALL_TIMEOUT_MS = 500;

    private AwsSdk2App() {
    }

    public static void main(String[] args) throws Exception {
        LayerCalls.run(args, (method, client, retries, url) -> {
            boolean timed = client.endsWith("-api-call-timeout");
            try (SdkHttpClient http = http(timed ? client.replace("-api-call-timeout", "") : client);
                 S3Client s3 = s3(http, url, retries > 0, timed)) {
                if (method.equals("POST")) {
                    return s3.deleteObjects(b -> b.bucket("bucket").delete(d -> d.objects(
                            ObjectIdentifier.builder().key("key").build()))).sdkHttpResponse().statusCode();
                }
                return s3.getObjectAsBytes(b -> b.bucket("bucket").key("key")).response().sdkHttpResponse()
                        .statusCode();
            }
        });
        System.exit(0);
    }

    private static SdkHttpClient http(String client) {
        return switch (client) {
            case "apache" -> ApacheHttpClient.builder().build();
            case "urlconnection" -> UrlConnectionHttpClient.builder().build();
            case "apache5" -> Apache5HttpClient.builder().build();
            default -> throw new IllegalArgumentException(client);
        };
    }

    private static S3Client s3(SdkHttpClient http, String url, boolean retries, boolean apiCallTimeout) {
        BackoffStrategy shortBackoff = BackoffStrategy.fixedDelay(Duration.ofMillis(10));
        return S3Client.builder()
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")))
                .endpointOverride(URI.create(url))
                .forcePathStyle(true)
                .httpClient(http)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> {
                    if (apiCallTimeout) {
                        o.apiCallTimeout(Duration.ofMillis(API_CALL_TIMEOUT_MS));
                    }
                    if (retries) {
                        o.retryStrategy(b -> b.backoffStrategy(shortBackoff).throttlingBackoffStrategy(shortBackoff));
                    } else {
                        o.retryStrategy(AwsRetryStrategy.doNotRetry());
                    }
                })
                .build();
    }
}
