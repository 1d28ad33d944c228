package repository

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// LocalCredentials are the static credentials of Config.LocalDatabase. DynamoDB Local accepts any
// credentials but only letters and digits in the access key, so the key is a digest of the name:
// the same name always reaches the same database, whatever characters it holds. Exported for
// tests that write to a Repo's table as another writer would (storetest.ImportTickets).
func LocalCredentials(name string) aws.CredentialsProvider {
	sum := sha256.Sum256([]byte(name))
	return credentials.NewStaticCredentialsProvider("db"+hex.EncodeToString(sum[:10]), "local", "")
}
