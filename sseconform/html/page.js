// Progressive enhancement only: every report is readable without it.
(function(){
  var bar=document.getElementById('filters');if(!bar)return;bar.classList.remove('hidden');
  var buttons=bar.querySelectorAll('button');
  function show(v){
    document.querySelectorAll('section.scenario').forEach(function(s){
      s.classList.toggle('hidden', v!=='all' && s.getAttribute('data-verdict')!==v);});
    buttons.forEach(function(b){b.setAttribute('aria-pressed', String(b.getAttribute('data-show')===v));});
  }
  buttons.forEach(function(b){b.addEventListener('click',function(){show(b.getAttribute('data-show'));});});
  document.querySelectorAll('table.sortable th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var body=th.closest('table').tBodies[0];var rows=Array.prototype.slice.call(body.rows);
      var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');
      rows.sort(function(a,b){var x=a.cells[i].textContent,y=b.cells[i].textContent;
        var nx=parseFloat(x),ny=parseFloat(y);
        return (isNaN(nx)||isNaN(ny)?x.localeCompare(y):nx-ny)*dir;});
      rows.forEach(function(r){body.appendChild(r);});});});
})();
