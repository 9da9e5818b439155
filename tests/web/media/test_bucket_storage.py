"""The media's storage class shares botocore's parsed models, never credentials
(radreview/media/bucket.py)."""
from radreview.media.bucket import BucketStorage


def storage(key: str) -> BucketStorage:
    return BucketStorage(bucket_name="radreview", endpoint_url="http://127.0.0.1:9",
                         region_name="us-east-1", access_key=key, secret_key=f"{key}-secret")


def test_sessions_share_the_model_loader_and_keep_their_own_credentials():
    first, second = storage("host-a")._create_session(), storage("host-b")._create_session()
    assert first._session.get_component("data_loader") is \
        second._session.get_component("data_loader")
    assert first.get_credentials().access_key == "host-a"
    assert second.get_credentials().access_key == "host-b"
    assert second.get_credentials().secret_key == "host-b-secret"
