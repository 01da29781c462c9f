// coal_dcol.cc: the coal peer of bench/bench_dcol.c. coal (the successor of hpp-fcl, Pinocchio's collision
// library) answers a pair of convex shapes by GJK, then EPA when they overlap; this file builds coal's own shape
// classes from the parameters bench_dcol gives and calls coal through its native API, the way a coal user does
// for a pair queried again and again (coal::ComputeDistance / coal::ComputeCollision: the pair's dispatch and
// its GJK solver are set up once). Built by setup_coal.sh into BUILD/peers/coal_dcol.so; bench_dcol loads it with
// dlopen and calls the C functions below. No osculate code is used here.
//
// Shapes (kinds numbered as osc_convex_kind; every size as in include/osculate/convex.h):
//   0 polytope   coal::ConvexBase::convexHull of the given vertices (qhull, triangles kept)
//   1 capsule    coal::Capsule(radius, 2 half_length), axis z
//   2 cylinder   coal::Cylinder(radius, 2 half_length)
//   3 cone       coal::Cone(radius, 2 half_length): coal's base is at z = -half_length, its apex at +half_length;
//                osculate's cone has its origin at the centroid, the base at -half_length / 2, so coal's cone is
//                placed half_length / 2 up the body z axis (a fixed offset folded into every pose)
//   4 ellipsoid  coal::Ellipsoid(r_x, r_y, r_z)
//   5 sphere     coal::Sphere(radius)
//   6 polygon    a flat coal::Convex<Triangle> of the polygon's vertices (z = 0, a fan of triangles) with coal's
//                swept-sphere radius set to the padding radius
// Poses: (p_x, p_y, p_z, q_w, q_x, q_y, q_z), world from body.

#include <coal/collision.h>
#include <coal/distance.h>
#include <coal/shape/convex.h>
#include <coal/shape/geometric_shapes.h>

#include <cmath>
#include <exception>
#include <memory>
#include <vector>

namespace {

struct Shape {
    std::shared_ptr<coal::CollisionGeometry> geometry;
    double offset_z; // coal's frame in the body frame: a translation along body z
};

struct Pair {
    const Shape* a;
    const Shape* b;
    coal::ComputeDistance distance;
    coal::ComputeCollision collision;
    coal::DistanceRequest distance_request;   // defaults: signed distance (EPA on overlap), nearest points
    coal::CollisionRequest collision_request; // defaults: one contact with its depth, normal and position
    Pair(const Shape* a_, const Shape* b_)
        : a(a_), b(b_), distance(a_->geometry.get(), b_->geometry.get()),
          collision(a_->geometry.get(), b_->geometry.get()) {}
};

coal::Transform3s transform(const Shape* s, const double pose[7]) {
    coal::Quatf q(pose[3], pose[4], pose[5], pose[6]);
    coal::Matrix3s r = q.toRotationMatrix();
    coal::Vec3s p(pose[0], pose[1], pose[2]);
    if (s->offset_z != 0.0) p += r.col(2) * s->offset_z;
    return coal::Transform3s(r, p);
}

} // namespace

extern "C" {

/// Returns a shape of `kind` (osc_convex_kind numbering) or NULL: params as above (radius, half_length; or the
/// three radii; a polygon's padding radius), vertices [count][3] for a polytope or a polygon.
void* osc_coal_shape_create(int kind, const double* params, const double* vertices, int count) {
    try {
        Shape* s = new Shape{nullptr, 0.0};
        switch (kind) {
        case 0: {
            auto points = std::make_shared<std::vector<coal::Vec3s>>();
            for (int i = 0; i < count; ++i)
                points->emplace_back(vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]);
            s->geometry.reset(coal::ConvexBase::convexHull(points, (unsigned)count, true, NULL));
            break;
        }
        case 1: s->geometry = std::make_shared<coal::Capsule>(params[0], 2.0 * params[1]); break;
        case 2: s->geometry = std::make_shared<coal::Cylinder>(params[0], 2.0 * params[1]); break;
        case 3:
            s->geometry = std::make_shared<coal::Cone>(params[0], 2.0 * params[1]);
            s->offset_z = 0.5 * params[1];
            break;
        case 4: s->geometry = std::make_shared<coal::Ellipsoid>(params[0], params[1], params[2]); break;
        case 5: s->geometry = std::make_shared<coal::Sphere>(params[0]); break;
        case 6: {
            auto points = std::make_shared<std::vector<coal::Vec3s>>();
            for (int i = 0; i < count; ++i) points->emplace_back(vertices[3 * i], vertices[3 * i + 1], 0.0);
            auto triangles = std::make_shared<std::vector<coal::Triangle>>();
            for (int i = 1; i + 1 < count; ++i)
                triangles->emplace_back(0, (coal::Triangle::index_type)i, (coal::Triangle::index_type)(i + 1));
            auto polygon = std::make_shared<coal::Convex<coal::Triangle>>(points, (unsigned)count, triangles,
                                                                          (unsigned)triangles->size());
            polygon->setSweptSphereRadius(params[0]);
            s->geometry = polygon;
            break;
        }
        default: delete s; return nullptr;
        }
        if (!s->geometry) {
            delete s;
            return nullptr;
        }
        s->geometry->computeLocalAABB();
        return s;
    } catch (const std::exception&) {
        return nullptr;
    }
}

void osc_coal_shape_destroy(void* shape) { delete static_cast<Shape*>(shape); }

/// Returns the query object of a pair (coal::ComputeDistance and coal::ComputeCollision), or NULL.
void* osc_coal_pair_create(const void* a, const void* b) {
    try {
        return new Pair(static_cast<const Shape*>(a), static_cast<const Shape*>(b));
    } catch (const std::exception&) {
        return nullptr;
    }
}

void osc_coal_pair_destroy(void* pair) { delete static_cast<Pair*>(pair); }

/// Returns coal's signed distance between the posed shapes (negative: penetration depth by EPA) and writes its
/// nearest points [2][3] and normal [3] (nullable); NaN when coal throws.
double osc_coal_distance(void* pair, const double pose_a[7], const double pose_b[7], double points[6],
                         double normal[3]) {
    Pair* q = static_cast<Pair*>(pair);
    try {
        coal::DistanceResult result;
        double d = q->distance(transform(q->a, pose_a), transform(q->b, pose_b), q->distance_request, result);
        if (points)
            for (int k = 0; k < 3; ++k) {
                points[k] = result.nearest_points[0][k];
                points[3 + k] = result.nearest_points[1][k];
            }
        if (normal)
            for (int k = 0; k < 3; ++k) normal[k] = result.normal[k];
        return d;
    } catch (const std::exception&) {
        return NAN;
    }
}

/// Returns 1 when coal::collide finds the posed shapes in collision (its contact's depth, normal and position
/// computed by EPA, depth written to *depth when non-NULL), 0 when not, -1 when coal throws.
int osc_coal_collide(void* pair, const double pose_a[7], const double pose_b[7], double* depth) {
    Pair* q = static_cast<Pair*>(pair);
    try {
        coal::CollisionResult result;
        size_t n = q->collision(transform(q->a, pose_a), transform(q->b, pose_b), q->collision_request, result);
        if (depth) *depth = n > 0 ? result.getContact(0).penetration_depth : 0.0;
        return n > 0;
    } catch (const std::exception&) {
        return -1;
    }
}

/// Returns the coal version the program was built against, "MAJOR.MINOR.PATCH".
const char* osc_coal_version(void) { return COAL_VERSION; }

} // extern "C"
