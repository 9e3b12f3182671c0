(function() { const o = document.getElementById('__abx_annotations'); if (o) o.remove(); })
