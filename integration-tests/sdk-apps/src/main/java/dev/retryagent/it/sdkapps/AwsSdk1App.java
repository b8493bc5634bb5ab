package dev.retryagent.it.sdkapps;

import com.amazonaws.ClientConfiguration;
import com.amazonaws.auth.AWSStaticCredentialsProvider;
import com.amazonaws.auth.BasicAWSCredentials;
import com.amazonaws.client.builder.AwsClientBuilder.EndpointConfiguration;
import com.amazonaws.retry.PredefinedRetryPolicies;
import com.amazonaws.retry.RetryPolicy;
import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.AmazonS3ClientBuilder;
import com.amazonaws.services.s3.model.DeleteObjectsRequest;
import com.amazonaws.services.s3.model.S3Object;
import dev.retryagent.it.apps.LayerCalls;

/**
 * S3 through the AWS SDK v1 (its own Apache HttpClient 4), one client per call ({@code client} is {@code apache}).
 * Retries on: the default retry condition and count with a 10 ms backoff; off:
 * {@code PredefinedRetryPolicies.NO_RETRY_POLICY}. GET is {@code getObject}, the POST {@code deleteObjects}.
 */
public final class AwsSdk1App {
    private AwsSdk1App() {
    }

    public static void main(String[] args) throws Exception {
        LayerCalls.run(args, (method, client, retries, url) -> {
            AmazonS3 s3 = s3(url, retries > 0);
            try {
                if (method.equals("POST")) {
                    s3.deleteObjects(new DeleteObjectsRequest("bucket").withKeys("key"));
                    return 200;
                }
                try (S3Object object = s3.getObject("bucket", "key")) {
                    object.getObjectContent().readAllBytes();
                    return 200;
                }
            } finally {
                s3.shutdown();
            }
        });
        System.exit(0);
    }

    private static AmazonS3 s3(String url, boolean retries) {
        RetryPolicy policy = retries
                ? new RetryPolicy(PredefinedRetryPolicies.DEFAULT_RETRY_CONDITION, (request, e, n) -> 10L,
                        PredefinedRetryPolicies.DEFAULT_MAX_ERROR_RETRY, true)
                : PredefinedRetryPolicies.NO_RETRY_POLICY;
        return AmazonS3ClientBuilder.standard()
                .withEndpointConfiguration(new EndpointConfiguration(url, "us-east-1"))
                .withPathStyleAccessEnabled(true)
                .withCredentials(new AWSStaticCredentialsProvider(new BasicAWSCredentials("AKIDEXAMPLE", "secret")))
                .withClientConfiguration(new ClientConfiguration().withRetryPolicy(policy))
                .build();
    }
}
