from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from radreview.accounts.permissions import require_site_admin
from radreview.jobs.models import Job
from workers.backends import ROLES, describe

from . import services


def status(request):
    require_site_admin(request.user)
    probes = services.latest_probes()
    rows = [{"status": status, "probe": probes.get(status.role)} for status in describe()]
    return render(request, "modelroles/status.html", {"rows": rows})


@require_POST
def test_role(request, role: str):
    require_site_admin(request.user)
    if role not in ROLES:
        raise Http404("No such model role")
    job = services.start_probe(role, actor=request.user)
    return render(request, "modelroles/_probe.html", {"probe": job, "role": role})


def probe_result(request, job_pk: int):
    require_site_admin(request.user)
    job = get_object_or_404(Job, pk=job_pk, stage=services.PROBE_STAGE)
    return render(request, "modelroles/_probe.html", {"probe": job, "role": job.params.get("role")})
