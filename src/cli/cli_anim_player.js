/* cli_anim_player.js - the player inside the HTML of `lagrange animate`
 * (embedded at build time by scripts/embed-assets.sh). It reads the motion
 * from <script id="lg-data" type="application/json"> (written by
 * cli_animate.c), builds a three.js scene and plays it.
 *
 * Data: positions are integers in units of D.unit, quaternions (x, y, z, w)
 * in units of D.qunit; frame 0 is D.base (every channel), later frames add
 * D.delta (frame-major, only the channels listed in D.varying).
 * Channels: x, y, z of each point, then x, y, z, w of each body, then of
 * each shape's frame (D.shapes: `draw sphere/capsule/cylinder/disk/box`).
 *
 * The page reports its state in #lg-status ("ready t=..." or "error: ...")
 * and on the console, so a headless browser can check it. #t=SECONDS
 * shows that instant, paused; &view=x (or y, z, -x, -y, -z) looks at the
 * motion from that side of the inertial frame. */
(function () {
  'use strict';
  var statusEl = document.getElementById('lg-status');

  function fail(msg) {
    statusEl.textContent = 'error: ' + msg;
    statusEl.className = 'error';
    if (window.console) console.error('lagrange-animate: error: ' + msg);
  }
  window.addEventListener('error', function (e) { fail(e.message || 'script error'); });

  /* ---- the motion ---------------------------------------------------------------- */
  function decode(D) {
    var nch = D.channels, nf = D.frames, nv = D.varying.length;
    var out = new Float32Array(nf * nch), cur = D.base.slice();
    var scale = [], p = 0, k, j;
    for (j = 0; j < nch; j++) scale.push(j < 3 * D.points.length ? D.unit : D.qunit);
    for (k = 0; k < nf; k++) {
      if (k > 0) for (j = 0; j < nv; j++) cur[D.varying[j]] += D.delta[p++];
      for (j = 0; j < nch; j++) out[k * nch + j] = cur[j] * scale[j];
    }
    return out;
  }

  /* ---- the scene ------------------------------------------------------------------- */
  function vec(a) { return new THREE.Vector3(a[0], a[1], a[2]); }

  function grid(D, size, up, low) {
    var divisions = 16, g = new THREE.GridHelper(size, divisions, 0xaaaaaa, 0xdddddd);
    /* GridHelper lies in three's xz plane (normal y): turn it to `up` */
    g.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
    var c = vec(D.center);
    g.position.copy(c.sub(up.clone().multiplyScalar(c.dot(up) - low)));
    return g;
  }

  /* A body: the box of its inertia, or (when the model draws shapes) its axes alone. */
  function bodyGroup(b, size, shapes) {
    var g = new THREE.Group();
    var s = b.size, m = Math.max(s[0], s[1], s[2]);
    if (!shapes) {
      var box = new THREE.Mesh(new THREE.BoxGeometry(s[0], s[1], s[2]),
        new THREE.MeshLambertMaterial({color: 0x4a7bd0, transparent: true, opacity: 0.45}));
      g.add(box);
    }
    g.add(new THREE.AxesHelper(shapes ? 0.3 * m : Math.max(0.6 * m, 0.08 * size)));
    return g;
  }

  /* ---- the shapes of `draw` ------------------------------------------------------------ */
  var shapeColors = {sphere: 0xd04a3a, capsule: 0x3a6fb0, cylinder: 0x6a6a72, disk: 0x2b2b30,
                     box: 0x4a9a6a};

  /* A capsule or cylinder of radius r and length 1 along y (scaled per frame). */
  function between(sh, mat) {
    var g = new THREE.Group(), r = sh.size[0];
    var body = new THREE.Mesh(new THREE.CylinderGeometry(1, 1, 1, 24), mat);
    body.scale.set(r, 1, r);
    g.add(body);
    g.userData = {body: body, caps: []};
    if (sh.kind === 'capsule') {
      for (var e = 0; e < 2; e++) {
        var c = new THREE.Mesh(new THREE.SphereGeometry(r, 20, 12), mat);
        g.add(c);
        g.userData.caps.push(c);
      }
    }
    return g;
  }

  /* A shape in a frame: the group turns with the frame; the mesh sits at the offset. */
  function inFrame(sh, mat) {
    var g = new THREE.Group(), m, z = sh.size;
    if (sh.kind === 'sphere') {
      m = new THREE.Mesh(new THREE.SphereGeometry(z[0], 24, 16), mat);
    } else if (sh.kind === 'box') {
      m = new THREE.Mesh(new THREE.BoxGeometry(z[0], z[1], z[2]), mat);
    } else { /* disk or cylinder: three's cylinders lie along y */
      var len = z[1] > 0 ? z[1] : z[0] / 12; /* a disk's default width */
      m = new THREE.Mesh(new THREE.CylinderGeometry(z[0], z[0], len, 48), mat);
      if (sh.axis === 0) m.rotation.z = -Math.PI / 2;
      if (sh.axis === 2) m.rotation.x = Math.PI / 2;
    }
    m.position.set(sh.at[0], sh.at[1], sh.at[2]);
    g.add(m);
    return g;
  }

  function shapeObject(sh) {
    var mat = new THREE.MeshLambertMaterial({color: shapeColors[sh.kind] || 0x777777});
    return sh.b >= 0 ? between(sh, mat) : inFrame(sh, mat);
  }

  var yAxis = new THREE.Vector3(0, 1, 0);
  function poseShape(sh, obj, M, o, qo) {
    var pa = new THREE.Vector3(M[o + 3 * sh.a], M[o + 3 * sh.a + 1], M[o + 3 * sh.a + 2]);
    if (sh.b < 0) {
      obj.position.copy(pa);
      obj.quaternion.set(M[qo], M[qo + 1], M[qo + 2], M[qo + 3]).normalize();
      return;
    }
    var pb = new THREE.Vector3(M[o + 3 * sh.b], M[o + 3 * sh.b + 1], M[o + 3 * sh.b + 2]);
    var d = pb.clone().sub(pa), len = d.length();
    obj.position.copy(pa.clone().add(pb).multiplyScalar(0.5));
    if (len > 0) obj.quaternion.setFromUnitVectors(yAxis, d.multiplyScalar(1 / len));
    obj.userData.body.scale.y = Math.max(len, 1e-9);
    var caps = obj.userData.caps;
    for (var e = 0; e < caps.length; e++) caps[e].position.set(0, (e ? 0.5 : -0.5) * len, 0);
  }

  function build(D, M) {
    var size = D.size, up = vec(D.up).normalize();
    var scene = new THREE.Scene();
    scene.background = new THREE.Color(0xf4f4f0);
    scene.add(new THREE.AmbientLight(0xffffff, 0.55));
    var sun = new THREE.DirectionalLight(0xffffff, 0.6);
    sun.position.copy(up.clone().multiplyScalar(3 * size).add(new THREE.Vector3(size, size, size)));
    scene.add(sun);
    scene.add(grid(D, D.gridSize, up, D.low));
    scene.add(new THREE.AxesHelper(0.25 * size));   /* the inertial frame */
    var r = 0.015 * size, pts = [], bodies = [], i;
    /* spheres smaller than the shortest segment, so a chain stays readable */
    for (i = 0; i < D.segments.length; i++) {
      var a = D.segments[i][0], b = D.segments[i][1], d2 = 0;
      for (var c3 = 0; c3 < 3; c3++) d2 += Math.pow(M[3 * a + c3] - M[3 * b + c3], 2);
      if (d2 > 0) r = Math.min(r, 0.2 * Math.sqrt(d2));
    }
    var geo = new THREE.SphereGeometry(1, 16, 12);
    var matPoint = new THREE.MeshLambertMaterial({color: 0x555555});
    var matParticle = new THREE.MeshLambertMaterial({color: 0xd04a3a});
    for (i = 0; i < D.points.length; i++) {
      var s = new THREE.Mesh(geo, D.points[i].particle ? matParticle : matPoint);
      s.scale.setScalar(D.points[i].particle ? 1.8 * r : r);
      scene.add(s);
      pts.push(s);
    }
    var nshapes = (D.shapes || []).length, shapes = [];
    for (i = 0; i < D.bodies.length; i++) {
      var g = bodyGroup(D.bodies[i], size, nshapes > 0);
      scene.add(g);
      bodies.push(g);
    }
    for (i = 0; i < nshapes; i++) {
      var so = shapeObject(D.shapes[i]);
      scene.add(so);
      shapes.push(so);
    }
    var segGeo = new THREE.BufferGeometry();
    var segPos = new Float32Array(6 * D.segments.length);
    segGeo.setAttribute('position', new THREE.BufferAttribute(segPos, 3));
    scene.add(new THREE.LineSegments(segGeo, new THREE.LineBasicMaterial({color: 0x222222})));
    var trails = [], nch = D.channels;
    for (i = 0; i < D.trails.length; i++) {
      var p = D.trails[i], tp = new Float32Array(3 * D.frames), k;
      for (k = 0; k < D.frames; k++)
        for (var c = 0; c < 3; c++) tp[3 * k + c] = M[k * nch + 3 * p + c];
      var tg = new THREE.BufferGeometry();
      tg.setAttribute('position', new THREE.BufferAttribute(tp, 3));
      var line = new THREE.Line(tg, new THREE.LineBasicMaterial({color: 0x2a9d5a}));
      line.frustumCulled = false;
      scene.add(line);
      trails.push(tg);
    }
    return {scene: scene, pts: pts, bodies: bodies, shapes: shapes, segGeo: segGeo,
            segPos: segPos, trails: trails};
  }

  /* Move everything to frame k. */
  function pose(D, M, S, k) {
    var nch = D.channels, o = k * nch, i, np = D.points.length;
    for (i = 0; i < np; i++)
      S.pts[i].position.set(M[o + 3 * i], M[o + 3 * i + 1], M[o + 3 * i + 2]);
    for (i = 0; i < D.bodies.length; i++) {
      var b = D.bodies[i], q = o + 3 * np + 4 * i;
      S.bodies[i].position.copy(S.pts[b.point].position);
      S.bodies[i].quaternion.set(M[q], M[q + 1], M[q + 2], M[q + 3]).normalize();
    }
    for (i = 0; i < S.shapes.length; i++)
      poseShape(D.shapes[i], S.shapes[i], M, o, o + 3 * np + 4 * (D.bodies.length + i));
    for (i = 0; i < D.segments.length; i++) {
      var a = D.segments[i][0], c = D.segments[i][1], j;
      for (j = 0; j < 3; j++) {
        S.segPos[6 * i + j] = M[o + 3 * a + j];
        S.segPos[6 * i + 3 + j] = M[o + 3 * c + j];
      }
    }
    S.segGeo.attributes.position.needsUpdate = true;
    S.segGeo.computeBoundingSphere();
    for (i = 0; i < S.trails.length; i++) S.trails[i].setDrawRange(0, k + 1);
  }

  /* ---- the camera: look at the motion's box across its thinnest side ------------------ */
  function camera(D, aspect) {
    var up = vec(D.up).normalize(), ext = D.extent, best = -1, i;
    var side = /(?:^#|&)view=([-+]?)([xyz])(?:&|$)/.exec(location.hash);
    for (i = 0; i < 3; i++) {
      if (Math.abs(up.getComponent(i)) > 0.9) continue;
      if (best < 0 || ext[i] < ext[best]) best = i;
    }
    /* across the thinnest horizontal side, turned a little sideways, and
     * always from above the ground: 20 degrees up from the horizontal */
    var across = new THREE.Vector3(), nudge = new THREE.Vector3(0.3, 0.3, 0.3);
    across.setComponent(best < 0 ? 0 : best, 1);
    across.add(nudge.sub(up.clone().multiplyScalar(nudge.dot(up))));
    across.sub(up.clone().multiplyScalar(across.dot(up)));
    if (across.lengthSq() < 1e-12) across.set(1, 0, 0).sub(up.clone().multiplyScalar(up.x));
    across.normalize();
    var elev = 20 * Math.PI / 180;
    var dir = across.multiplyScalar(Math.cos(elev)).add(up.clone().multiplyScalar(Math.sin(elev)));
    dir.normalize();
    var camUp = up.clone();
    if (side) { /* from one side: straight along an axis */
      dir.set(0, 0, 0).setComponent('xyz'.indexOf(side[2]), side[1] === '-' ? -1 : 1);
      if (Math.abs(dir.dot(up)) > 0.99)
        camUp.set(0, 0, 0).setComponent(('xyz'.indexOf(side[2]) + 1) % 3, 1);
    }
    var radius = Math.max(0.5 * Math.sqrt(ext[0] * ext[0] + ext[1] * ext[1] + ext[2] * ext[2]),
                          0.05 * D.size);
    var fov = 40, dist = 1.15 * radius / Math.sin(fov * Math.PI / 360);
    var cam = new THREE.PerspectiveCamera(fov, aspect, dist / 1000, dist * 100);
    cam.up.copy(camUp);
    cam.position.copy(vec(D.center).add(dir.multiplyScalar(dist)));
    cam.lookAt(vec(D.center));
    return cam;
  }

  /* ---- #t=SECONDS ------------------------------------------------------------------------ */
  function hashTime() {
    var m = /(?:^#|&)t=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)/.exec(location.hash);
    return m ? parseFloat(m[1]) : null;
  }

  function main() {
    if (typeof THREE === 'undefined') throw new Error('three.js is missing');
    var D = JSON.parse(document.getElementById('lg-data').textContent);
    var M = decode(D), S = build(D, M);
    var view = document.getElementById('lg-view');
    var renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    view.appendChild(renderer.domElement);
    var cam = camera(D, 1);
    var controls = new THREE.OrbitControls(cam, renderer.domElement);
    controls.target.copy(vec(D.center));
    controls.screenSpacePanning = true;
    controls.update();

    var playBtn = document.getElementById('lg-play'), slider = document.getElementById('lg-time');
    var clock = document.getElementById('lg-clock'), speedSel = document.getElementById('lg-speed');
    var duration = (D.frames - 1) / D.fps, t = 0, playing = true, last = null, frame = -1;
    slider.max = String(D.frames - 1);

    function resize() {
      var w = view.clientWidth || window.innerWidth, h = view.clientHeight || window.innerHeight;
      renderer.setSize(w, h);
      cam.aspect = w / h;
      cam.updateProjectionMatrix();
    }
    function show(force) {
      var k = Math.max(0, Math.min(D.frames - 1, Math.round(t * D.fps)));
      if (k === frame && !force) return;
      frame = k;
      pose(D, M, S, k);
      slider.value = String(k);
      clock.textContent = 't = ' + (D.t0 + k / D.fps).toFixed(3) + ' s';
      renderer.render(S.scene, cam);
    }
    function setPlaying(p) {
      playing = p;
      playBtn.textContent = p ? 'Pause' : 'Play';
      last = null;
    }
    function tick(now) {
      if (playing) {
        if (last !== null) {
          t += (now - last) / 1000 * parseFloat(speedSel.value);
          if (t > duration) t = duration > 0 ? t % duration : 0;
        }
        last = now;
        show(false);
      }
      requestAnimationFrame(tick);
    }
    function fromHash() {
      var h = hashTime();
      if (h === null) return false;
      t = Math.max(0, Math.min(duration, h - D.t0));
      setPlaying(false);
      show(true);
      return true;
    }
    playBtn.addEventListener('click', function () { setPlaying(!playing); });
    slider.addEventListener('input', function () {
      setPlaying(false);
      t = parseInt(slider.value, 10) / D.fps;
      show(true);
    });
    window.addEventListener('keydown', function (e) {
      if (e.key === ' ' && e.target === document.body) { setPlaying(!playing); e.preventDefault(); }
    });
    controls.addEventListener('change', function () { renderer.render(S.scene, cam); });
    window.addEventListener('resize', function () { resize(); show(true); });
    window.addEventListener('hashchange', fromHash);
    resize();
    if (!fromHash()) show(true);
    var msg = 'ready t=' + (D.t0 + frame / D.fps).toFixed(3) + ' frames=' + D.frames +
              (playing ? ' playing' : ' paused');
    statusEl.textContent = msg;
    if (window.console) console.log('lagrange-animate: ' + msg);
    requestAnimationFrame(tick);
  }

  try {
    main();
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
