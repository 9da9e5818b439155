from django.db import connection
from django.http import HttpResponse


def health(request):
    """204 when the database answers; the review page's outage notice polls this to reconnect
    (an outage raises here and the middleware answers 503)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse(status=204)
