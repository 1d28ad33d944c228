package repository

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// streamsMaxAttempts bounds the SDK's own tries of one DynamoDB Streams call. It is lower than a
// request's (DefaultMaxAttempts) because the stream reader has a retry loop of its own that
// never gives up (repository/stream/shard.go): a short SDK retry absorbs a blip, and anything longer
// reaches the reader soon enough for it to report the outage and back off.
const streamsMaxAttempts = 3

// newStreamsClient is the DynamoDB Streams client of a Repo, set up like its DynamoDB client:
// the same credentials and region, the same transport wrapper (the tests' fault injectors), the
// same observer (calls are counted by operation: GetRecords, GetShardIterator, DescribeStream)
// and tracer, the same test middleware. Its calls open spans only inside a trace (see
// observeMiddleware).
//
// On AWS, DynamoDB Streams has an endpoint of its own (streams.dynamodb.<region>.amazonaws.com),
// which the SDK finds when no endpoint is configured; DynamoDB Local serves both APIs on one
// port. So the client takes the endpoint the SDK's own configuration gives DynamoDB Streams
// (AWS_ENDPOINT_URL_DYNAMODB_STREAMS, AWS_ENDPOINT_URL), and else Config.Endpoint.
func newStreamsClient(awsCfg aws.Config, cfg Config) *dynamodbstreams.Client {
	return dynamodbstreams.NewFromConfig(awsCfg, func(o *dynamodbstreams.Options) {
		if o.BaseEndpoint == nil && cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.HTTPClient = wrapHTTPClient(o.HTTPClient, cfg.WrapTransport)
		o.Retryer = newRetryer(streamsMaxAttempts)
		o.APIOptions = append(o.APIOptions, observeMiddleware(serviceStreams, cfg.Table, cfg.Observer, cfg.TracerProvider, true))
		o.APIOptions = append(o.APIOptions, cfg.APIOptions...)
		o.Logger = sdkLogger(cfg.Logger)
	})
}
